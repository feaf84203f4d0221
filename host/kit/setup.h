// Node set-up for a control program (docs/protocols.md, "Node set-up"): the steps every
// protocol library performs before an experiment, in one convention.
//
//   kit::load(cluster, image);                        // every node: SRAM image, CPU at entry
//   for (i ...) { kit::poke(node, view.ref("vmmc.node"), i);
//                 kit::write_routes(cluster, i, view.ref("vmmc_routes")); }
//   kit::start(cluster, &driver);
//
// Routes: a table (an array) of a struct with `len: u32` and `hops: u8[N]`, one entry per
// destination node. The hops are right-aligned in `hops` so the firmware copies whole words
// in front of a header (firmware/lib's Route); `len` is the hop count, or kNoRoute when the
// destination has no route or one longer than N (the firmware refuses sends to it).
#pragma once

#include "assembler/image.h"
#include "host/kit/image_view.h"
#include "sim/cluster.h"

#include <cstdint>
#include <optional>

namespace lanaikit::kit {

class Driver;

inline constexpr uint32_t kNoRoute = 0xFFFFFFFF;

// Loads the image on every node (untimed; CPUs stopped at the entry until start()).
void load(sim::Cluster& cluster, const assembler::FirmwareImage& image);
// Writes node `node`'s route table (the network's source routes to every node). Throws
// KitError if the table has fewer entries than the cluster has nodes.
void write_routes(sim::Cluster& cluster, uint32_t node, const Ref& table);
// Multi-path routes (adaptive routing): `table` holds `per_node` routes per destination
// (entry dst * per_node + k), route k being path k of net::Network::paths(node, dst),
// repeated round the paths a pair has when it has fewer (so every entry is a valid route
// and a program spreading packets over the entries needs no count). Same struct and
// conventions as write_routes.
void write_paths(sim::Cluster& cluster, uint32_t node, const Ref& table, uint32_t per_node);
// Starts every node's CPU and, with a driver, its driver process right after it (node by
// node, so events at time zero keep one order whatever the protocol).
void start(sim::Cluster& cluster, Driver* driver = nullptr);

// The node whose process list holds `p` (a library checks that a caller runs on its
// endpoint's node); nullopt for a process made by hand outside any node.
std::optional<uint32_t> node_of(sim::Cluster& cluster, const host::Process& p);

} // namespace lanaikit::kit
