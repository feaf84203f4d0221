// FUGU's network interface (the UDM paper, Figure 3 and Tables 1-3), attached to the chip
// as a register block (vm/register_block.h) between the CPU and a pair of packet links.
// On a FUGU node the emulated CPU is the node processor: user code describes a message
// into the send buffer and launches it, reads the head of the input queue through the
// input window and disposes of it, and controls message interrupts with beginatom /
// endatom; the kernel sets the running application's GID, divert mode and the atomicity
// timeout. docs/udm.md, "The network interface", is the manual.
//
// Operations (Table 1) are register stores (the paper allows it: "might be encoded as
// writes to additional memory-mapped registers"). Interrupts and traps (Table 2) use the
// CPU's extension (docs/vm.md, "Interrupts and traps"): three interrupt lines and device
// trap codes.
//
// Send. Stores to SEND[0..15] describe a message (word 0: the destination node, bit 31 a
// kernel message; word 1: the handler; the rest the payload). DESCLEN is the number of
// words described since the last launch. A store at an offset the output queue cannot take
// yet blocks (MmioStatus::Busy: the CPU waits a cycle and retries); SPACE says how many
// words can be written without blocking (injectc). LAUNCH (the length in words) sends
// SEND[0..len-1] atomically, stamped with the source node and the GID; the output queue
// streams it into the link.
//
// Receive. Arriving packets fill the input queue (the link is stalled, STOP, while it is
// full). The head message, once wholly arrived, is in the window RECV[0..15] (with
// RECV_LEN and RECV_SRC) for user code if it belongs to the running application (its GID
// matches, it is not a kernel message, divert mode is off): MSGAVAIL, and the
// message-available interrupt unless UAC's interrupt-disable is set. Any other head message
// raises mismatch-available for the kernel. DISPOSE removes the head message.
//
// Atomicity (Table 3). UAC bits: interrupt-disable and timer-force (user: BEGINATOM sets,
// ENDATOM clears), dispose-pending and atomicity-extend (kernel). The atomicity timer
// counts user cycles (the CPU's user alarm) while enabled: timer-force, or
// interrupt-disable with a message of the application waiting. It is preset while
// disabled and by every DISPOSE; reaching TIMEOUT raises atomicity-timeout until the kernel
// acknowledges it. ENDATOM in user mode with a kernel bit set traps (dispose-failure if
// dispose-pending is still set: the handler did not dispose; atomicity-extend otherwise).
//
// Timing (lanaikit's model; the paper gives none): register operations take effect at
// once; the queues are sized in words (Config); the link's own model times the wire.
#pragma once

#include "net/link.h"
#include "net/packet.h"
#include "vm/register_block.h"

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace lanaikit::vm {

// Where firmware expects it (firmware/udm's FUGU_NI): the start of the block window.
inline constexpr uint32_t kFuguInterfaceBase = kBlockWindowBase;

struct FuguCounters {
  uint64_t launched = 0, received = 0, disposed = 0;
  uint64_t mismatches = 0;      // head messages that raised mismatch-available
  uint64_t timeouts = 0;        // atomicity timeouts
  uint64_t crc_dropped = 0;     // packets that arrived corrupted (dropped, counted)
  uint64_t malformed = 0;       // packets too short or with a bad length (dropped)
  uint64_t blocked_cycles = 0;  // CPU retries on a full output queue
  uint64_t traps = 0;           // traps raised (any code)
  uint64_t dma_records = 0;     // messages copied to memory by DISPOSE_TO
};

class FuguInterface final : public RegisterBlock, public net::PacketSink {
public:
  enum Offset : uint32_t {
    SEND = 0x000,      // 16 words: the send buffer (user RW)
    SPACE = 0x040,     // R: words that can be written without blocking (0..16)
    DESCLEN = 0x044,   // R (kernel W): words described since the last launch
    LAUNCH = 0x048,    // W: launch SEND[0..value-1]
    MSGAVAIL = 0x04C,  // R: 1 when a message of the running application is in the window
    DISPOSE = 0x050,   // W: dispose of the head message
    BEGINATOM = 0x054, // W: UAC |= value's user bits
    ENDATOM = 0x058,   // W: UAC &= ~value's user bits (traps with a kernel bit set)
    UAC = 0x05C,       // R (kernel W): the four UAC bits
    RECV_LEN = 0x078,  // R: the window's message length in words (0 if none)
    RECV_SRC = 0x07C,  // R: its source node (RECV_LEN and RECV_SRC sit just before RECV:
                       //   the layout of a buffered message record, docs/udm.md)
    RECV = 0x080,      // 16 words: the input window (R)
    kUserEnd = 0x0C0,  // user code may reach the registers below this
    GID = 0x0C0,       // kernel RW: the running application's group id (0..255)
    DIVERT = 0x0C4,    // kernel RW: divert mode
    TIMEOUT = 0x0C8,   // kernel RW: the atomicity timeout, in user cycles (0: no timer)
    TIMER = 0x0CC,     // kernel RW: user cycles left before the timeout (stopped: what the
                       //   next start counts from); W: the running timer, or its next start
                       //   (once: a dispose presets it), counts from the value (0: TIMEOUT)
                       //   -- what a context switch saves and restores
    HEAD = 0x0D0,      // kernel R: bit 0 a message at the head, bit 1 a kernel message,
                       //   bits 15..8 its GID
    IRQ_ACK = 0x0D4,   // kernel W: bit 0 clears atomicity-timeout
    NODE = 0x0D8,      // R: this node's number
    NODES = 0x0DC,     // R: nodes on the network
    DISPOSE_TO = 0x0E0, // kernel W: copy the head message into SRAM at the value as a record
                        //   (length, source, words), then dispose of it (the paper's DMA
                        //   "optionally invoked as part of the dispose operation")
    MSGBASE = 0x0E4,   // kernel RW: the base register: 0, the window; else the SRAM address
                       //   of a record (length, source, words) that MSG shows instead
    MSG_LEN = 0x100,   // R: the message at the base, read in one access each (the paper's
    MSG_SRC = 0x104,   //   "known base register" without a register to spare: user code
    MSG = 0x108,       //   never holds the base, so the kernel can move it between any two
                       //   instructions): its length (0: none), source and 16 words
    kSize = 0x148,
  };
  static constexpr uint32_t kBufferWords = 16;
  // UAC bits (Table 3).
  static constexpr uint32_t kInterruptDisable = 1, kTimerForce = 2; // user
  static constexpr uint32_t kDisposePending = 4, kAtomicityExtend = 8; // kernel
  static constexpr uint32_t kUserBits = kInterruptDisable | kTimerForce;
  // Word 0 of a message: destination node in bits 15..0; bit 31 marks a kernel message.
  static constexpr uint32_t kKernelMessage = 0x80000000u;
  // Interrupt lines (Table 2) and device trap codes (cause cpuctl::kCauseDevice + code).
  enum Line : unsigned { kLineTimeout = 0, kLineMismatch = 1, kLineMessage = 2,
                        kLineChip = 3 }; // on a FUGU node the chip's interrupt (ISR & EIMR:
                                         // the kernel's timer), sim::Cluster routes it
  enum TrapCode : uint32_t {
    kProtectionViolation = 0, // a user launch of a kernel message, of a bad length or to no node
    kDisposeExtend = 1,       // a user DISPOSE in divert mode (the kernel emulates it)
    kDisposeFailure = 2,      // a user ENDATOM with dispose-pending still set
    kBadDispose = 3,          // a user DISPOSE with no message in the window
    kAtomicityExtendTrap = 4, // a user ENDATOM with atomicity-extend set
  };

  struct Config {
    uint32_t output_words = 48; // launched words waiting for the link (lanaikit's figure)
    uint32_t input_words = 64;  // words of arrived messages the interface holds (lanaikit's)
  };

  // `tx` and `rx` are the node's links (the interface becomes rx's sink); routes[d] is the
  // source route to node d.
  FuguInterface(net::Link& tx, net::Link& rx, uint32_t node,
                std::vector<std::vector<uint8_t>> routes, Config config);
  ~FuguInterface() override;

  const FuguCounters& counters() const { return counters_; }
  uint32_t node() const { return node_; }

  // RegisterBlock.
  std::string name() const override { return "fugu_interface"; }
  uint32_t size_bytes() const override { return kSize; }
  bool needs_exact_time(uint32_t offset, bool is_write) const override;
  bool user_access(uint32_t offset, bool is_write) const override;
  MmioStatus read(uint32_t offset, bool from_host, uint32_t& value) override;
  MmioStatus write(uint32_t offset, bool from_host, uint32_t value) override;
  std::string error_detail() const override { return error_; }
  uint32_t trap_cause() const override { return trap_; }
  void reset() override;
  std::string report() const override;

  // net::PacketSink: the receive link's chunks.
  uint32_t accept(const net::Chunk& chunk) override;

private:
  struct Message {
    uint32_t src = 0, gid = 0;
    bool kernel = false;
    bool counted = false; // in counters_.mismatches
    std::vector<uint32_t> words;
  };
  struct Outgoing {
    std::vector<uint8_t> bytes; // route, header, words
    uint32_t words = 0;
  };
  MmioStatus error(std::string detail) {
    error_ = std::move(detail);
    return MmioStatus::Error;
  }
  MmioStatus trap(TrapCode code) {
    trap_ = code;
    ++counters_.traps;
    return MmioStatus::Trap;
  }
  MmioStatus launch(uint32_t len, bool from_kernel);
  MmioStatus dispose(bool from_kernel);
  MmioStatus dispose_to(uint32_t address);
  MmioStatus endatom(uint32_t bits, bool from_kernel);
  uint32_t space() const; // words the output queue can take now, at most kBufferWords
  bool head_ready() const { return !input_.empty(); }
  bool user_message() const; // the head belongs to the running application
  // Lines and the atomicity timer from the state; call after every change.
  void update();
  void arm_timer();
  void timed_out();
  void pump();

  net::Link& tx_;
  net::Link& rx_;
  uint32_t node_;
  std::vector<std::vector<uint8_t>> routes_;
  Config config_;

  std::array<uint32_t, kBufferWords> send_{};
  uint32_t desclen_ = 0;
  std::deque<Outgoing> output_;             // packets not yet wholly in the link
  uint32_t output_words_ = 0;               // their message words
  size_t output_sent_ = 0;                  // bytes of output_.front() already streamed
  net::PacketPtr streaming_;
  std::deque<Message> input_; // wholly arrived, in order
  std::vector<uint8_t> partial_; // the packet arriving now
  uint32_t input_words_ = 0;  // words held: input_ plus the one arriving (reserved)
  uint32_t uac_ = 0, gid_ = 0, timeout_ = 0;
  bool divert_ = false;
  bool timer_running_ = false, timed_out_ = false;
  uint64_t timer_deadline_ = 0;
  uint32_t timer_resume_ = 0; // the next start's count (a TIMER write while stopped); 0: TIMEOUT
  uint32_t trap_ = 0;
  uint32_t msgbase_ = 0; // MSGBASE
  bool stalled_ = false; // we refused a chunk: call sink_ready when room appears
  std::string error_;
  FuguCounters counters_;
};

} // namespace lanaikit::vm
