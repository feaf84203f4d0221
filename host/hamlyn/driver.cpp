#include "host/hamlyn/driver.h"

#include "host/kit/sram.h"

#include <stdexcept>
#include <string>

namespace lanaikit::hamlyn {

namespace {
std::string at(const char* array, uint32_t i, const char* field) {
  return std::string("hamlyn.") + array + "[" + std::to_string(i) + "]." + field;
}
} // namespace

Driver::Driver(sim::Node& node, const kit::ImageView& view) : node_(node), view_(view) {
  queues_.resize(view_.constant32("MAX_NQCBS"));
}

Region Driver::allocate(uint32_t bytes) {
  const uint64_t page = host::kPageSize;
  const uint64_t n = (bytes + page - 1) / page;
  std::vector<uint64_t> pages = node_.memory().allocate_pages(n);
  for (uint64_t i = 1; i < pages.size(); ++i)
    if (pages[i] != pages[0] + i)
      throw std::runtime_error("hamlyn driver: no " + std::to_string(bytes) +
                               " contiguous bytes of host memory on " + node_.name());
  Region r{pages.empty() ? 0 : pages[0] << host::kPageShift, bytes};
  std::vector<uint8_t> zero(size_t(n * page), 0);
  node_.memory().write(r.addr, zero);
  return r;
}

uint32_t Driver::open_nqcb(uint32_t index, uint32_t entries) {
  if (index >= queues_.size()) throw std::invalid_argument("hamlyn driver: no NQCB " + std::to_string(index));
  const Region q = allocate(entries * view_.size("HamlynNote"));
  queues_[index] = q;
  kit::poke(node_, view_.ref(at("nqcbs", index, "base")), q.addr);
  kit::poke(node_, view_.ref(at("nqcbs", index, "entries")), entries);
  kit::poke(node_, view_.ref(at("nqcbs", index, "cursor")), 0);
  kit::poke(node_, view_.ref(at("nqcbs", index, "wrap")), 1); // the first lap writes 1
  return index;
}

void Driver::open_slot(uint32_t index, const SlotSpec& s) {
  const uint32_t entry = view_.constant32("META_ENTRY_BYTES");
  kit::poke(node_, view_.ref(at("slots", index, "base")), s.area.addr);
  kit::poke(node_, view_.ref(at("slots", index, "bound")), s.area.bytes);
  kit::poke(node_, view_.ref(at("slots", index, "key_hi")), s.key >> 32);
  kit::poke(node_, view_.ref(at("slots", index, "key_lo")), s.key & 0xFFFFFFFFu);
  kit::poke(node_, view_.ref(at("slots", index, "meta_base")), s.meta.addr);
  kit::poke(node_, view_.ref(at("slots", index, "meta_entries")), s.meta.bytes / entry);
  kit::poke(node_, view_.ref(at("slots", index, "nqcb")), s.nqcb);
  kit::poke(node_, view_.ref(at("slots", index, "mode")), uint32_t(s.mode)); // last: live
}

void Driver::open_terminus(uint32_t t, const std::vector<Region>& bufs, uint64_t seq_word) {
  if (bufs.size() > view_.constant32("SEND_BUFFERS"))
    throw std::invalid_argument("hamlyn driver: more send buffers than a terminus has");
  const std::string tm = "hamlyn.termini[" + std::to_string(t) + "]";
  for (size_t i = 0; i < bufs.size(); ++i) {
    const std::string b = tm + ".buffers[" + std::to_string(i) + "]";
    kit::poke(node_, view_.ref(b + ".base"), bufs[i].addr);
    kit::poke(node_, view_.ref(b + ".bound"), bufs[i].bytes);
  }
  kit::poke(node_, view_.ref(tm + ".seq_addr"), seq_word);
  const kit::Ref mask = view_.ref("hamlyn.open_mask");
  kit::poke(node_, mask, kit::peek(node_, mask) | (uint64_t(1) << t));
}

void Driver::go(uint32_t node_index, uint32_t nnodes, uint32_t handshake_ticks) {
  kit::poke(node_, view_.ref("hamlyn.node"), node_index);
  kit::poke(node_, view_.ref("hamlyn.nnodes"), nnodes);
  kit::poke(node_, view_.ref("hamlyn.handshake_ticks"), handshake_ticks);
  kit::poke(node_, view_.ref("hamlyn.go"), view_.constant32("HAMLYN_GO"));
}

} // namespace lanaikit::hamlyn
