// DART's driver (docs/dart.md, "The driver"): what needs the operating system. It attaches
// the Send Registers to every node's card, opens endpoints (a contiguous virtual region
// of a process's address space: base and bound in the card's Endpoint Table, the process's
// address-space id as the TLB's tag) and connections (a VCI each way, the circuits through
// the switch, a window of address registers at each end, a send slot at each end), and
// serves the card's events: a TLB miss is answered by translating the page in the owner's
// address space (pinning it while the card maps it), filling the card's entry and resuming
// the parked cell or send; the other events are kept for the library. Set-up is untimed,
// as a driver's is before an experiment; serving a miss is timed (PIO, pinning).
// The card's layouts come from the image (dart_defs.fw): nothing here repeats an offset.
#pragma once

#include "host/dart/send_registers.h"
#include "host/kit/driver.h"
#include "host/kit/image_view.h"
#include "host/model/address_space.h"
#include "sim/cluster.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <memory>
#include <vector>

namespace lanaikit::dart {

struct Endpoint {
  uint32_t node = 0, index = 0, asid = 0;
  uint32_t base = 0;  // virtual
  uint32_t bytes = 0;
};

// Both directions between two endpoints. `vci_ab` carries a's cells to b (b's connection
// on it names b's endpoint and b's register window), `vci_ba` the other way.
struct Connection {
  Endpoint a, b;
  uint32_t vci_ab = 0, vci_ba = 0;
  uint32_t slot_a = 0, slot_b = 0;         // send slots: a sends on vci_ab from slot_a
  uint32_t regs_a = 0, regs_b = 0;         // first address register of each end's window
  uint32_t reg_count = 0;
};

// An event the card posted (DartEventKind), as the driver read it.
struct Event {
  uint32_t kind = 0, vci = 0, a = 0, b = 0;
};

class Driver {
public:
  // Attaches a SendRegisters block to every node's chip; the cluster must have an ATM
  // network (ClusterParams::atm) and every node DART's image loaded.
  Driver(sim::Cluster& cluster, const kit::ImageView& view);
  ~Driver();

  // An endpoint of `bytes` in `space` (mapped now; its pages reach the card's TLB only when
  // the card misses on them). Throws std::invalid_argument when the card's table is full.
  Endpoint open_endpoint(uint32_t node, host::AddressSpace& space, uint32_t bytes);
  // A connection between two endpoints on different nodes, with `reg_count` address
  // registers at each end. Throws std::invalid_argument when VCIs, slots or registers run out.
  // Windows may overlap: `shared` names, for either end, a first register (from
  // alloc_registers) that the end's window starts at instead of fresh registers, so
  // several connections reach the same registers (a counter every node updates).
  struct SharedWindows {
    std::optional<uint32_t> at_a, at_b;
  };
  Connection connect(const Endpoint& a, const Endpoint& b, uint32_t reg_count, SharedWindows shared = {});
  // `count` address registers of `node` that no connection's own window takes, for
  // shared windows. Throws std::invalid_argument when the card has no more.
  uint32_t alloc_registers(uint32_t node, uint32_t count);
  // An address register's value, read or set untimed (set-up, checks after a run).
  uint32_t register_value(uint32_t node, uint32_t reg) const;
  void set_register(uint32_t node, uint32_t reg, uint32_t value);
  // The tables are set: every card starts taking cells. Starts the chips and the driver
  // processes (kit::start).
  void go();

  // The Send Registers' protection (the paper's "protected, user level interaction"): each
  // slot's registers are a page of their own, which the driver maps into the address
  // space owning the sending end's endpoint, and only there. Returns the page's virtual
  // address in `space` (in a device range above the spaces' memory); throws
  // std::invalid_argument if `space` does not own that end's endpoint.
  uint32_t map_send_slot(const Connection& c, bool from_a, const host::AddressSpace& space);
  // A process's store to (or load from) a Send Register at `vaddr` of `space`: a posted
  // PIO write to (a PIO read of) its slot. An address not mapped in `space` (another
  // process's slot, a slot never mapped) is a page fault: host::PageFault is thrown, the
  // fault counted, and nothing reaches the card.
  void send_register_write(host::Process& p, uint32_t node, const host::AddressSpace& space, uint32_t vaddr,
                           uint32_t value);
  host::Process::Awaiter send_register_read(host::Process& p, uint32_t node, const host::AddressSpace& space,
                                            uint32_t vaddr, uint32_t& out);
  uint64_t protection_faults(uint32_t node) const { return faults_.at(node); }
  static constexpr uint32_t kSendPages = 0xE0000000; // slot s of a node: kSendPages + s * 4096

  SendRegisters& send_registers(uint32_t node) { return *send_regs_.at(node); }
  // Every event the card posted, in order (the driver reads them in its interrupt service).
  const std::vector<Event>& events(uint32_t node) const { return events_.at(node); }
  // The interrupt handlers for conditionals, exceptions, unknown opcodes and failed
  // blocks: `handler` runs in the driver's service (at its time, after the event's PIO
  // reads) for each such event, TLB misses being the driver's own business; then
  // event_watch(node) is notified, so a process can wait for what a handler recorded.
  using EventHandler = std::function<void(uint32_t node, const Event&)>;
  void on_event(EventHandler handler) { handler_ = std::move(handler); }
  host::WaitList& event_watch(uint32_t node) { return *event_watch_.at(node); }
  uint64_t misses_served(uint32_t node) const { return misses_.at(node); }
  uint32_t reg_address(uint32_t reg) const; // SRAM address of address register `reg`
  const kit::ImageView& view() const { return view_; }
  sim::Cluster& cluster() { return cluster_; }

private:
  host::Op<void> serve(host::Process& p, uint32_t node);
  void poke(uint32_t node, const std::string& path, uint64_t value);

  sim::Cluster& cluster_;
  const kit::ImageView& view_;
  kit::Driver irq_;
  std::vector<SendRegisters*> send_regs_;
  std::vector<std::map<uint32_t, host::AddressSpace*>> spaces_; // per node: asid -> space
  std::vector<uint32_t> endpoints_, slots_, regs_;             // per node: next free
  std::vector<std::set<std::pair<uint32_t, uint32_t>>> pinned_; // per node: (asid, vpage)
  std::vector<std::vector<Event>> events_;
  std::vector<uint64_t> misses_;
  EventHandler handler_;
  std::vector<std::unique_ptr<host::WaitList>> event_watch_;
  // Per node: the Send Register pages mapped, by (space, page's virtual address) -> slot.
  std::vector<std::map<std::pair<const host::AddressSpace*, uint32_t>, uint32_t>> slot_pages_;
  std::vector<uint64_t> faults_;
  uint32_t slot_register(uint32_t node, const host::AddressSpace& space, uint32_t vaddr); // chip address
  std::vector<uint32_t> ev_tail_;
  uint32_t next_vci_ = 32; // below: reserved (ATM's signalling and management VCIs)
};

} // namespace lanaikit::dart
