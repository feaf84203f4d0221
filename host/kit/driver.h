// The driver skeleton (docs/protocols.md, "The driver"): one host process per node that
// answers the control program's interrupts, the part every protocol's driver shares.
//
//   kit::Driver d(cluster, "vmmc-driver");
//   d.on(regs::LAN0_SIG_BIT, [v](host::Process& p, uint32_t node) { return v->serve_miss(p, node);
//   }); d.on(regs::LAN1_SIG_BIT);                         // acknowledged; served by every_turn
//   d.every_turn([v](host::Process& p, uint32_t node) { return v->scan_rings(p, node); });
//   kit::start(cluster, &d);                          // chips started, EIMR set, processes spawned
//
// Each process waits for its node's interrupt, reads ISR by PIO, acknowledges the bits it
// owns (write 1 to clear), runs the service of every bit that was set in the order they
// were registered, then every `every_turn` service, and reads ISR again until none of its
// bits is set: a bit that rises while it works is never lost. An `every_turn` service
// runs after the ISR read, which comes after the previous acknowledgement on the bus, so a
// record whose interrupt that acknowledgement wiped out is already in host memory by then.
//
// Lifetime: a library may be destroyed while its cluster lives on (between runs). The
// destructor makes every driver process inert: one waiting for an interrupt never serves
// again. A process in the middle of a service (a run stopped during a PIO read) would
// resume into the destroyed library if the cluster ran again, so the library must outlive
// every later run of its cluster (the rule VMMC documents).
#pragma once

#include "host/model/process.h"
#include "sim/cluster.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace lanaikit::kit {

class Driver {
public:
  using Service = std::function<host::Op<void>(host::Process& p, uint32_t node)>;

  Driver(sim::Cluster& cluster, std::string process_name);
  ~Driver();
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  // Before start(): the ISR bits this driver owns and what serves them (none: acknowledged
  // only, e.g. a bit whose work an every_turn service finds by itself).
  void on(uint32_t isr_bits, Service service = {});
  void every_turn(Service service);
  // Unmasks the owned bits in node `i`'s EIMR and spawns its driver process (once).
  // kit::start(cluster, &driver) does it for every node as it starts the chips.
  void start(uint32_t node);

  uint32_t bits() const;
  // Interrupt turns served per node (ISR reads that found one of our bits).
  uint64_t turns(uint32_t node) const;

  struct Shared; // what the driver processes hold (they may outlive the Driver)

private:
  sim::Cluster& cluster_;
  std::string name_;
  std::shared_ptr<Shared> shared_;
  std::vector<bool> started_;
};

} // namespace lanaikit::kit
