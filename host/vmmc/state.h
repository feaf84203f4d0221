// VMMC host library internals (docs/vmmc.md, "Host library"): the state its files share,
// declarations only. Internal to host/vmmc/ (not installed); the interface is vmmc.h.
//
//   map.cpp       the LCP's constants and SRAM places, resolved through the kit's image view
//   vmmc.cpp      Vmmc: set-up of the LCP on every node, open, counters; costs_from_platform
//   driver.cpp    the per-node driver process: interrupts, TLB misses, notification rings
//   daemon.cpp    the daemons: export_buffer, import and the control path between them
//   endpoint.cpp  Endpoint: send, test, wait, notifications, wait_word, counters, post_raw
#pragma once

#include "host/vmmc/vmmc.h"

#include "base/bytes.h"
#include "host/kit/driver.h"
#include "host/kit/image_view.h"
#include "host/kit/ring.h"
#include "host/kit/sram.h"
#include "vm/chip_regs.h"

#include <deque>
#include <map>
#include <optional>
#include <set>

namespace lanaikit::vmmc::detail {

constexpr uint32_t kIrqBits = vm::regs::LAN0_SIG_BIT | vm::regs::LAN1_SIG_BIT;


inline std::string str(uint64_t v) { return std::to_string(v); }

// The LCP as the host sees it, resolved once from its image (map.cpp): its constants
// (firmware/vmmc/vmmc_defs.fw, from the layout table: no C++ copy of any) and the SRAM
// places the library touches, through the kit's image view. Throws VmmcError naming what
// the image lacks.
struct Lcp {
  explicit Lcp(const assembler::FirmwareImage& img);
  Lcp(const Lcp&) = delete;
  Lcp& operator=(const Lcp&) = delete;

  assembler::FirmwareImage image;
  kit::ImageView view;
  // Constants.
  uint32_t page = 0, go = 0, ctl_short = 0, ctl_notify = 0, done_rejected = 0, opt_valid = 0,
           opt_node_shift = 0, opt_node_mask = 0, ipt_w = 0, ipt_n = 0, ipt_proc = 0;
  // Places: the control block, the process slots, the page tables, the route table.
  kit::Ref ctl, procs, opt, ipt, routes;
  // The TLB-miss mailbox (addresses: read on every miss).
  uint32_t miss_seq = 0, miss_proc = 0, miss_vpage = 0, miss_pages = 0, fill = 0, fill_proc = 0,
           fill_count = 0, fill_seq = 0;
  // Records the host builds or decodes: field offsets.
  uint32_t req_data = 0, req_proxy = 0, req_vaddr = 0, req_ctl = 0;
  uint32_t fill_size = 0, fill_vpage = 0, fill_ppage = 0;
  uint32_t note_size = 0, note_index = 0, note_src = 0, note_addr = 0, note_len = 0;
  Vmmc::Limits limits{};

  kit::Ref proc(uint32_t slot) const { return procs[slot]; }
};

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
  kit::Ref proc; // its VmmcProc
  std::unique_ptr<host::AddressSpace> space;
  VirtAddr done_va = 0, ring_va = 0;
  host::PhysAddr done_pa = 0;
  std::optional<kit::SramQueue> sendq; // the process's send queue (VmmcProc.sendq)
  std::optional<kit::HostRing> ring;   // its notification ring
  uint32_t notify_consumed = 0;        // SRAM address the driver writes per notification
  mutable std::set<uint32_t> long_pending; // long requests not yet seen complete
  mutable std::set<uint32_t> rejected;     // requests whose completion word had bit 31
  std::vector<bool> long_seq;              // [seq - 1]: was request seq long?
  // Imports, in this process's proxy space.
  std::vector<Import> imports;
  std::vector<bool> proxy_used; // per proxy page
  // Pages the driver pinned for TLB fills (virtual page numbers).
  std::set<uint64_t> driver_pinned;
  // Notifications.
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
  Lcp lcp;
  Costs costs;
  std::vector<NodeState> nodes;
  std::vector<std::unique_ptr<Endpoint>> endpoints;
  // The driver processes (driver.cpp): TLB misses on LAN0, notification rings every turn.
  kit::Driver driver;
  // False once the Vmmc is gone: a notification handler posted before then does not run.
  std::shared_ptr<bool> alive = std::make_shared<bool>(true);

  VmmcState(sim::Cluster& c, const assembler::FirmwareImage& image, Costs k);

  // Untimed SRAM access (set-up, counters).
  uint32_t peek(uint32_t node, const kit::Ref& place) const;
  void poke(uint32_t node, const kit::Ref& place, uint32_t value);

  // Registers the driver's services (driver.cpp).
  void install_driver();
  host::Op<void> serve_miss(host::Process& p, uint32_t node);
  host::Op<void> serve_notifications(host::Process& p, uint32_t node);
};

} // namespace lanaikit::vmmc::detail

namespace lanaikit::vmmc {

struct Endpoint::Impl : detail::EpState {
  using EpState::EpState;
};

} // namespace lanaikit::vmmc
