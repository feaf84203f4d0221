#include "vm/fugu_interface.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace lanaikit::vm {

namespace {
// The interface's header on the wire, after the route bytes: source node (2 bytes), GID,
// then bit 7 kernel message and bits 4..0 the length in words.
constexpr uint32_t kHeaderBytes = 4;
constexpr uint8_t kFlagKernel = 0x80;

uint32_t be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}
} // namespace

FuguInterface::FuguInterface(net::Link& tx, net::Link& rx, uint32_t node,
                             std::vector<std::vector<uint8_t>> routes, Config config)
    : tx_(tx), rx_(rx), node_(node), routes_(std::move(routes)), config_(config) {
  if (config_.output_words < kBufferWords || config_.input_words < kBufferWords + 1)
    throw std::invalid_argument("fugu_interface: the queues must hold a whole message");
  tx_.set_on_tx_space([this] { pump(); });
  rx_.set_sink(this);
}

FuguInterface::~FuguInterface() {
  tx_.set_on_tx_space(nullptr);
  rx_.set_sink(nullptr);
}

// Accesses whose effect another component sees (a launch, a dispose that makes room and
// lets the link go on), and those that read or set the atomicity timer: the timer counts
// the CPU's user cycles, which are exact only at the access's own time.
bool FuguInterface::needs_exact_time(uint32_t offset, bool is_write) const {
  if (!is_write) return offset == TIMER;
  switch (offset) {
  case TIMER:
  case LAUNCH:
  case DISPOSE:
  case DISPOSE_TO:
  case BEGINATOM:
  case ENDATOM:
  case UAC:
  case GID:
  case DIVERT:
  case TIMEOUT:
  case IRQ_ACK: return true;
  default: return false;
  }
}

bool FuguInterface::user_access(uint32_t offset, bool is_write) const {
  if (offset >= MSG_LEN) return !is_write;
  if (offset >= kUserEnd) return offset == NODE || offset == NODES ? !is_write : false;
  return !(is_write && (offset == DESCLEN || offset == UAC));
}

bool FuguInterface::user_message() const {
  if (input_.empty() || divert_) return false;
  const Message& m = input_.front();
  return !m.kernel && m.gid == gid_;
}

uint32_t FuguInterface::space() const {
  const uint32_t free = config_.output_words - output_words_;
  return std::min(free, kBufferWords);
}

MmioStatus FuguInterface::read(uint32_t offset, bool from_host, uint32_t& value) {
  if (from_host) return error("FUGU's interface has no host side");
  const bool user = port().cpu_user_mode();
  // User code sees the window only for its own messages (no snooping on another group's).
  const bool window = !user || user_message();
  if (offset < SPACE) {
    value = send_[offset / 4];
    return MmioStatus::Ok;
  }
  if (offset >= MSG_LEN && offset < MSG + 4 * kBufferWords) {
    // Through the base register: the window itself, or a record in SRAM.
    if (msgbase_ == 0)
      return read(offset == MSG_LEN ? RECV_LEN : offset == MSG_SRC ? RECV_SRC : RECV + (offset - MSG),
                  from_host, value);
    uint8_t b[4];
    if (!port().sram_read(msgbase_ + (offset - MSG_LEN), b)) return error("MSG read outside SRAM (MSGBASE)");
    value = uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3];
    return MmioStatus::Ok;
  }
  if (offset >= RECV && offset < RECV + 4 * kBufferWords) {
    const uint32_t i = (offset - RECV) / 4;
    value = window && !input_.empty() && i < input_.front().words.size() ? input_.front().words[i] : 0;
    return MmioStatus::Ok;
  }
  switch (offset) {
  case SPACE: value = space(); return MmioStatus::Ok;
  case DESCLEN: value = desclen_; return MmioStatus::Ok;
  case MSGAVAIL: value = user_message() ? 1 : 0; return MmioStatus::Ok;
  case UAC: value = uac_; return MmioStatus::Ok;
  case RECV_LEN:
    value = window && !input_.empty() ? uint32_t(input_.front().words.size()) : 0;
    return MmioStatus::Ok;
  case RECV_SRC: value = window && !input_.empty() ? input_.front().src : 0; return MmioStatus::Ok;
  case GID: value = gid_; return MmioStatus::Ok;
  case DIVERT: value = divert_; return MmioStatus::Ok;
  case TIMEOUT: value = timeout_; return MmioStatus::Ok;
  case TIMER: {
    const uint64_t now = port().cpu_user_cycles();
    value = timer_running_ ? uint32_t(timer_deadline_ > now ? timer_deadline_ - now : 0)
            : timed_out_   ? 0
            : timer_resume_ ? timer_resume_
                            : timeout_;
    return MmioStatus::Ok;
  }
  case HEAD:
    value = input_.empty() ? 0
                           : 1u | (input_.front().kernel ? 2u : 0u) | (input_.front().gid & 0xFF) << 8;
    return MmioStatus::Ok;
  case NODE: value = node_; return MmioStatus::Ok;
  case NODES: value = uint32_t(routes_.size()); return MmioStatus::Ok;
  case MSGBASE: value = msgbase_; return MmioStatus::Ok;
  case LAUNCH:
  case DISPOSE:
  case DISPOSE_TO:
  case BEGINATOM:
  case ENDATOM:
  case IRQ_ACK: return error("write-only register");
  default: return MmioStatus::Unmapped;
  }
}

MmioStatus FuguInterface::write(uint32_t offset, bool from_host, uint32_t value) {
  if (from_host) return error("FUGU's interface has no host side");
  const bool user = port().cpu_user_mode();
  if (offset < SPACE) {
    const uint32_t i = offset / 4;
    // A store the output queue cannot take yet blocks until the network drains.
    if (i >= space()) {
      ++counters_.blocked_cycles;
      return MmioStatus::Busy;
    }
    send_[i] = value;
    desclen_ = std::max(desclen_, i + 1);
    return MmioStatus::Ok;
  }
  switch (offset) {
  case DESCLEN:
    if (value > kBufferWords) return error("DESCLEN is at most 16");
    desclen_ = value;
    return MmioStatus::Ok;
  case LAUNCH: return launch(value, !user);
  case DISPOSE: return dispose(!user);
  case DISPOSE_TO: return dispose_to(value);
  case MSGBASE:
    if (value % 4 != 0) return error("MSGBASE must be word-aligned");
    msgbase_ = value;
    return MmioStatus::Ok;
  case BEGINATOM:
    uac_ |= value & kUserBits;
    update();
    return MmioStatus::Ok;
  case ENDATOM: return endatom(value, !user);
  case UAC:
    uac_ = value & (kUserBits | kDisposePending | kAtomicityExtend);
    update();
    return MmioStatus::Ok;
  case GID:
    if (value > 0xFF) return error("GID is 0..255");
    gid_ = value;
    update();
    return MmioStatus::Ok;
  case DIVERT:
    divert_ = value != 0;
    update();
    return MmioStatus::Ok;
  case TIMEOUT:
    timeout_ = value;
    update();
    return MmioStatus::Ok;
  case IRQ_ACK:
    if (value & 1) timed_out_ = false;
    update();
    return MmioStatus::Ok;
  case TIMER: // a context switch puts back what an application had left
    if (timer_running_) {
      timer_deadline_ = port().cpu_user_cycles() + (value ? value : timeout_);
      port().set_cpu_user_alarm(timer_deadline_, [this] { timed_out(); });
    } else {
      timer_resume_ = value;
    }
    return MmioStatus::Ok;
  case SPACE:
  case MSGAVAIL:
  case RECV_LEN:
  case RECV_SRC:
  case HEAD:
  case NODE:
  case NODES: return error("read-only register");
  default:
    if (offset >= MSG_LEN && offset < MSG + 4 * kBufferWords) return error("MSG is read-only");
    if (offset >= RECV && offset < RECV + 4 * kBufferWords) return error("the input window is read-only");
    return MmioStatus::Unmapped;
  }
}

MmioStatus FuguInterface::launch(uint32_t len, bool from_kernel) {
  const uint32_t dest = send_[0] & 0xFFFF;
  const bool kernel = (send_[0] & kKernelMessage) != 0;
  const bool bad_len = len == 0 || len > kBufferWords;
  const bool bad_dest = dest >= routes_.size() || (dest != node_ && routes_[dest].empty());
  if (!from_kernel && (kernel || bad_len || bad_dest)) return trap(kProtectionViolation);
  if (bad_len) return error("LAUNCH of " + std::to_string(len) + " words (1..16)");
  if (bad_dest) return error("LAUNCH to node " + std::to_string(dest) + ": no such node");
  if (len > space()) { // not wholly described yet: the launch waits like a describing store
    ++counters_.blocked_cycles;
    return MmioStatus::Busy;
  }
  Outgoing out;
  out.words = len;
  out.bytes = routes_[dest];
  out.bytes.push_back(uint8_t(node_ >> 8));
  out.bytes.push_back(uint8_t(node_));
  out.bytes.push_back(uint8_t(gid_));
  out.bytes.push_back(uint8_t((kernel ? kFlagKernel : 0) | len));
  for (uint32_t i = 0; i < len; ++i)
    for (int s = 24; s >= 0; s -= 8) out.bytes.push_back(uint8_t(send_[i] >> s));
  output_.push_back(std::move(out));
  output_words_ += len;
  desclen_ = 0;
  ++counters_.launched;
  pump();
  return MmioStatus::Ok;
}

// Streams launched packets into the link's transmit FIFO as it makes room (its
// on_tx_space calls back), one after the other; a packet's words leave the output queue
// once its last byte is in the FIFO.
void FuguInterface::pump() {
  while (!output_.empty()) {
    Outgoing& out = output_.front();
    if (!streaming_) {
      streaming_ = std::make_shared<net::Packet>();
      streaming_->id = (uint64_t(node_) << 40) | counters_.launched;
      tx_.stream_begin(streaming_);
    }
    while (output_sent_ < out.bytes.size()) {
      const uint32_t n = std::min<uint32_t>(tx_.tx_space(), uint32_t(out.bytes.size() - output_sent_));
      if (n == 0) return; // on_tx_space calls again
      streaming_->bytes.insert(streaming_->bytes.end(), out.bytes.begin() + long(output_sent_),
                               out.bytes.begin() + long(output_sent_ + n));
      output_sent_ += n;
      tx_.stream_append(n, output_sent_ == out.bytes.size());
    }
    output_words_ -= out.words;
    output_.pop_front();
    output_sent_ = 0;
    streaming_.reset();
  }
}

MmioStatus FuguInterface::dispose(bool from_kernel) {
  if (!from_kernel) {
    if (divert_) return trap(kDisposeExtend);
    if (!user_message()) return trap(kBadDispose);
  } else if (input_.empty()) {
    return error("DISPOSE with no message at the head");
  }
  input_words_ -= uint32_t(input_.front().words.size()) + 1;
  input_.pop_front();
  uac_ &= ~kDisposePending;
  ++counters_.disposed;
  // "dispose operation briefly disables (i.e., presets) timer"
  if (timer_running_) {
    port().clear_cpu_user_alarm();
    timer_running_ = false;
  }
  timer_resume_ = 0;
  update();
  if (stalled_) {
    stalled_ = false;
    rx_.sink_ready();
  }
  return MmioStatus::Ok;
}

// The buffer-insertion DMA: the head message, whatever its GID, into kernel memory as the
// record user code reads through the base-register convention (word 0 the length, word 1
// the source, then the words: the window's own layout from RECV_LEN on). At the access's
// time, like the rest of the interface; the CPU pays only the store.
MmioStatus FuguInterface::dispose_to(uint32_t address) {
  if (input_.empty()) return error("DISPOSE_TO with no message at the head");
  const Message& m = input_.front();
  std::vector<uint8_t> bytes;
  bytes.reserve(8 + 4 * m.words.size());
  auto put = [&](uint32_t w) {
    for (int s = 24; s >= 0; s -= 8) bytes.push_back(uint8_t(w >> s));
  };
  put(uint32_t(m.words.size()));
  put(m.src);
  for (uint32_t w : m.words) put(w);
  if (address % 4 != 0 || !port().sram_write(address, bytes)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "DISPOSE_TO 0x%08x: a %zu-byte record does not fit in SRAM there",
                  address, bytes.size());
    return error(buf);
  }
  ++counters_.dma_records;
  // The kernel's copy is not the application's dispose: dispose-pending stays as it was,
  // so a handler that never disposes the copied message still fails at its ENDATOM.
  const uint32_t pending = uac_ & kDisposePending;
  const MmioStatus st = dispose(true);
  uac_ |= pending;
  return st;
}

MmioStatus FuguInterface::endatom(uint32_t bits, bool from_kernel) {
  if (!from_kernel) {
    if (uac_ & kDisposePending) return trap(kDisposeFailure);
    if (uac_ & kAtomicityExtend) return trap(kAtomicityExtendTrap);
  }
  uac_ &= ~(bits & kUserBits);
  update();
  return MmioStatus::Ok;
}

void FuguInterface::update() {
  const bool mine = user_message();
  port().set_cpu_line(kLineTimeout, timed_out_);
  port().set_cpu_line(kLineMismatch, !input_.empty() && !mine);
  port().set_cpu_line(kLineMessage, mine && !(uac_ & kInterruptDisable));
  // TIMEOUT 0 (the reset value) is no timer: a kernel that revokes sets one.
  const bool enabled = timeout_ != 0 && !timed_out_ &&
                       ((uac_ & kTimerForce) || ((uac_ & kInterruptDisable) && mine));
  if (enabled && !timer_running_) {
    timer_running_ = true;
    timer_deadline_ = port().cpu_user_cycles() + (timer_resume_ ? timer_resume_ : timeout_);
    timer_resume_ = 0;
    port().set_cpu_user_alarm(timer_deadline_, [this] { timed_out(); });
  } else if (!enabled && timer_running_) {
    timer_running_ = false;
    port().clear_cpu_user_alarm();
  }
  if (!input_.empty() && !mine && input_.front().counted == false) {
    input_.front().counted = true;
    ++counters_.mismatches;
  }
}

// The CPU's user alarm: the atomic section held the network for TIMEOUT user cycles.
void FuguInterface::timed_out() {
  timer_running_ = false;
  timed_out_ = true;
  ++counters_.timeouts;
  update();
}

uint32_t FuguInterface::accept(const net::Chunk& chunk) {
  const uint32_t capacity = config_.input_words * 4;
  const uint32_t held = input_words_ * 4 + uint32_t(partial_.size());
  const uint32_t take = std::min<uint32_t>(chunk.length, capacity > held ? capacity - held : 0);
  const uint8_t* p = chunk.packet->bytes.data() + chunk.offset;
  partial_.insert(partial_.end(), p, p + take);
  if (take < chunk.length) { // full: the link keeps the rest (STOP builds up) until a dispose
    stalled_ = true;
    return take;
  }
  if (!chunk.tail) return take;
  // The whole packet is in: check it and queue it.
  std::vector<uint8_t> bytes = std::move(partial_);
  partial_.clear();
  if (!port().powered()) return take + 1;
  if (chunk.packet->status & net::kCrcError) {
    ++counters_.crc_dropped;
    return take + 1;
  }
  const uint32_t len = bytes.size() >= kHeaderBytes ? bytes[3] & 0x1F : 0;
  if (bytes.size() < kHeaderBytes || len == 0 || len > kBufferWords ||
      bytes.size() != kHeaderBytes + 4 * len) {
    ++counters_.malformed;
    return take + 1;
  }
  Message m;
  m.src = uint32_t(bytes[0]) << 8 | bytes[1];
  m.gid = bytes[2];
  m.kernel = (bytes[3] & kFlagKernel) != 0;
  for (uint32_t i = 0; i < len; ++i) m.words.push_back(be32(bytes.data() + kHeaderBytes + 4 * i));
  input_words_ += len + 1; // the header's word too: the queue is counted in wire words
  input_.push_back(std::move(m));
  ++counters_.received;
  update();
  return take + 1;
}

void FuguInterface::reset() {
  send_.fill(0);
  desclen_ = 0;
  input_.clear();
  partial_.clear();
  input_words_ = 0;
  uac_ = gid_ = timeout_ = 0;
  msgbase_ = 0;
  divert_ = false;
  timer_running_ = timed_out_ = false;
  timer_resume_ = 0;
  stalled_ = false;
  // The output queue keeps streaming what was launched (it is on its way into the link).
}

std::string FuguInterface::report() const {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "node %u gid %u divert %d uac %x desclen %u space %u input %zu message(s) "
                "timer %s",
                node_, gid_, int(divert_), uac_, desclen_, space(), input_.size(),
                timed_out_ ? "timed out" : timer_running_ ? "running" : "stopped");
  return buf;
}

} // namespace lanaikit::vm
