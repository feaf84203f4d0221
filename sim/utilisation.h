// How busy each part of a cluster was: the CPUs (inside handlers vs polling, when a
// profiler counts handlers), each node's PCI bus and its three DMA engines, and every
// link. Fractions of the elapsed simulated time, from the models' own busy counters, so
// they are exact and cost nothing to keep.
#pragma once

#include "sim/cluster.h"
#include "vm/profiler.h"

#include <string>
#include <vector>

namespace lanaikit::sim {

struct UtilisationRow {
  std::string component; // "node0 cpu handlers", "node0 pci", "node0 host-dma", "link sw0.1->node1", ...
  Time busy = 0;
  double fraction = 0; // busy / elapsed
};

struct Utilisation {
  Time elapsed = 0;
  std::vector<UtilisationRow> rows;
};

// `profilers[i]` (optional, may be shorter or hold nulls) gives node i's CPU time inside
// handlers; without it the CPU row is left out (a polling CPU is always "busy").
Utilisation utilisation(Cluster& cluster, const std::vector<const vm::Profiler*>& profilers = {});
std::string format_utilisation(const Utilisation& u);

} // namespace lanaikit::sim
