// VMMC host library internals (docs/vmmc.md, "Host library"): the state its files share,
// declarations only. Internal to host/vmmc/ (not installed); the interface is vmmc.h.
//
//   map.cpp       the layout table read into a Map of SRAM addresses and offsets, checked
//   vmmc.cpp      Vmmc: set-up of the LCP on every node, open, counters; costs_from_platform
//   driver.cpp    the per-node driver process: interrupts, TLB misses, notification rings
//   daemon.cpp    the daemons: export_buffer, import and the control path between them
//   endpoint.cpp  Endpoint: send, test, wait, notifications, wait_word, counters, post_raw
#pragma once

#include "host/vmmc/vmmc.h"

#include "vm/chip_regs.h"

#include <deque>
#include <map>
#include <set>

namespace lanaikit::vmmc::detail {

constexpr uint32_t kPage = 4096;
constexpr uint32_t kIrqBits = vm::regs::LAN0_SIG_BIT | vm::regs::LAN1_SIG_BIT;

inline uint32_t be32(const uint8_t* b) {
  return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3];
}

inline void put_be32(uint8_t* b, uint32_t v) {
  b[0] = uint8_t(v >> 24);
  b[1] = uint8_t(v >> 16);
  b[2] = uint8_t(v >> 8);
  b[3] = uint8_t(v);
}

inline std::string str(uint64_t v) { return std::to_string(v); }

// Every SRAM address and field offset the host uses, resolved once from the image.
struct Map {
  uint32_t ctl = 0; // &vmmc
  // VmmcCtl
  uint32_t c_node, c_host_pages, c_go, c_miss_seq, c_miss_proc, c_miss_vpage, c_miss_pages,
      c_fill_proc, c_fill_count, c_fill, c_fill_seq;
  uint32_t c_sent, c_received, c_bad_crc, c_bad_magic, c_bad_len, c_bad_dest, c_tlb_misses,
      c_tlb_fills;
  std::optional<uint32_t> c_bad_fill; // added by the LCP (docs/vmmc.md, "The LCP")
  uint32_t fill_size, f_vpage, f_ppage;
  // vmmc_procs: VmmcProc[MAX_PROCS]
  uint32_t procs, proc_size;
  uint32_t p_active, p_done_addr, p_notify_ring, p_notify_slots, p_notify_consumed, p_consumed,
      p_done, p_notified, p_bad_proxy, p_bad_len, p_bad_vaddr, p_notify_overflow, p_sendq;
  // VmmcSendReq
  uint32_t req_size, r_data, r_proxy, r_vaddr, r_ctl, r_seq;
  // tables
  uint32_t opt, ipt, routes, route_size, route_len, route_hops, route_max;
  // VmmcNotification
  uint32_t note_size, n_index, n_src, n_addr, n_len;
  Vmmc::Limits limits{};
};

// Resolves every address and offset from the image's layout table and checks the sizes
// (map.cpp); throws VmmcError naming what is missing.
Map resolve(const assembler::FirmwareImage& img);

struct Export {
  ExportId id = 0;
  uint32_t slot = 0; // the exporting process
  VirtAddr va = 0;
  uint32_t len = 0;
  std::vector<host::PhysAddr> pages;
  std::vector<EndpointId> allowed;
  bool notify = false;
  sim::Time visible_at = 0; // the daemon knows it from then on
};

struct Import {
  ProxyAddr proxy = 0;
  uint32_t len = 0;
  uint32_t node = 0;
  ExportId id = 0;
};

struct VmmcState;

// One endpoint's state (Endpoint::Impl is this).
struct EpState {
  VmmcState& v;
  uint32_t node = 0;
  uint32_t slot = 0;
  uint32_t proc = 0; // SRAM address of its VmmcProc
  std::unique_ptr<host::AddressSpace> space;
  VirtAddr done_va = 0, ring_va = 0;
  host::PhysAddr done_pa = 0, ring_pa = 0;
  uint32_t ring_slots = 0;
  // Send queue.
  uint32_t posted = 0;   // requests posted (the last seq)
  uint32_t consumed = 0; // the LCP's `consumed` as last read
  uint64_t consumed_reads = 0;
  mutable std::set<uint32_t> long_pending; // long requests not yet seen complete
  mutable std::set<uint32_t> rejected;     // requests whose completion word had bit 31
  std::vector<bool> long_seq;              // [seq - 1]: was request seq long?
  // Imports, in this process's proxy space.
  std::vector<Import> imports;
  std::vector<bool> proxy_used; // per proxy page
  // Pages the driver pinned for TLB fills (virtual page numbers).
  std::set<uint64_t> driver_pinned;
  // Notifications.
  uint32_t notes_taken = 0;
  std::function<void(const Notification&)> handler;
  std::deque<Notification> notes;
  host::WaitList notes_watch;
  const host::Process* checked = nullptr;

  explicit EpState(VmmcState& vs) : v(vs) {}
  sim::Node& node_ref();
  void check_process(const host::Process& p);
  uint32_t done_word() const;
  // Reads the completion word and records what it says.
  void observe() const;
  bool complete(uint32_t seq) const;
  SendResult result(uint32_t seq, bool is_short) const;
  const Import* import_for(ProxyAddr dst, uint32_t len) const;
  // To the handler if one is set, else to the queue next_notification() takes from.
  void deliver(const Notification& n);
};

struct NodeState {
  sim::Node* node = nullptr;
  std::vector<EpState*> slots; // by process slot; null: free
  std::map<ExportId, Export> exports;
  std::map<uint64_t, std::pair<ExportId, uint32_t>> page_owner; // ppage -> (export, page)
  ExportId next_export = 1;
  uint32_t last_fill_seq = 0;
};

struct VmmcState {
  sim::Cluster& cluster;
  assembler::FirmwareImage lcp;
  Costs costs;
  Map m;
  std::vector<NodeState> nodes;
  std::vector<std::unique_ptr<Endpoint>> endpoints;
  std::shared_ptr<bool> alive = std::make_shared<bool>(true);

  VmmcState(sim::Cluster& c, const assembler::FirmwareImage& image, Costs k);

  // Untimed SRAM access (set-up, counters).
  uint32_t peek(uint32_t node, uint32_t addr) const;
  void poke(uint32_t node, uint32_t addr, uint32_t value);
  uint32_t proc_base(uint32_t slot) const;

  host::Op<void> serve_miss(host::Process& p, uint32_t node);
  host::Op<void> serve_notifications(host::Process& p, uint32_t node);
};

// The driver process of node n (driver.cpp); inert once *alive is false, if it is waiting
// for an interrupt (not in the middle of serving one: see Vmmc's lifetime rule).
host::Task driver_loop(host::Process& p, VmmcState* v, uint32_t n, std::shared_ptr<bool> alive);

} // namespace lanaikit::vmmc::detail

namespace lanaikit::vmmc {

struct Endpoint::Impl : detail::EpState {
  using EpState::EpState;
};

} // namespace lanaikit::vmmc
