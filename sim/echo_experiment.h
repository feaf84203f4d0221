// The two-node echo experiment (firmware/echo/): a host process on node 0 PIO-writes a
// message into its NIC's SRAM and rings the doorbell; the firmware sends it through the
// switch; node 1's firmware DMAs it into host memory with a completion record; node 1's
// host process sees it and sends it back the same way. Half the round trip is the one-way
// latency. One message is followed through every component for the latency breakdown.
//
// Until the scripting layer (lua-scripts/) exists this is the toolkit's built-in
// experiment, run by `lanaikit echo` and by the README's main job.
#pragma once

#include "assembler/image.h"
#include "sim/cluster.h"
#include "sim/message_trace.h"
#include "sim/profile_report.h"
#include "vm/profiler.h"

#include <ostream>

#include <cstdint>
#include <string>
#include <vector>

namespace lanaikit::sim {

struct EchoConfig {
  ClusterParams cluster;          // nodes >= 2; node 0 pings node 1
  std::vector<uint32_t> sizes = {4, 16, 64, 256, 1024, 4096};
  uint32_t warmup = 2;            // round trips per size not measured
  uint32_t iterations = 10;       // measured round trips per size
  uint64_t max_batch = 0;         // chips' batch limit (0: none; 1: the reference)
  bool doze = true;               // idle chips doze (vm/doze.h); off: every instruction runs
  bool take_held = true;          // vm::Chip::set_take_held: off, every chunk is an event
  Time time_limit = kSecond;      // simulated; past it the run stops with each chip's state
  // Profile every chip (vm/profiler.h): per-handler events for these symbols, per-line
  // counts. The CPUs then run on the reference model: same results, slower.
  bool profile = false;
  std::vector<std::string> handlers = {"send_message", "deliver"};
  // Optional outputs (null: none): a Chrome trace-event timeline, a pcapng capture of every
  // link, and per-node callgrind profiles (with `profile`).
  std::ostream* trace = nullptr;
  std::ostream* pcap = nullptr;
  std::vector<std::ostream*> callgrind;
};

struct EchoSizeResult {
  uint32_t bytes = 0;
  std::vector<Time> one_way; // per measured round trip: rtt / 2
  Time median = 0, min = 0, max = 0;
  double mb_per_s = 0;       // bytes / median one-way time (ping-pong bandwidth)
  uint64_t send_insns = 0;   // sender firmware, doorbell -> send started (last message)
  uint64_t recv_insns = 0;   // receiver firmware, tail received -> completion DMA started
  MessageBreakdown breakdown;   // of the last measured message node 0 -> node 1
};

struct EchoResult {
  std::vector<EchoSizeResult> sizes;
  Time simulated = 0;          // simulated time of the whole run
  double wall_seconds = 0;
  uint64_t guest_instructions = 0; // all chips
  uint64_t events = 0;
  uint64_t agent_batches = 0;
  uint64_t dozed_instructions = 0; // all chips: counted by arithmetic while dozing
  uint64_t trace_hash = 0;
  uint64_t rejected = 0;       // packets the firmware rejected (should be 0)
  // With profiling: per node, the handler summaries and the text report.
  std::vector<std::vector<vm::HandlerSummary>> handlers;
  std::vector<std::string> profiles;
  std::vector<ProfileTables> tables; // per node: per function and per source line

  std::string utilisation; // sim/utilisation.h, formatted
};

// Runs the experiment with `firmware` (built from firmware/echo/echo.c) on every node.
// Throws std::runtime_error if an echoed payload differs from what was sent, a chip
// faults (with its fault report), or the run does not finish within its time limit.
EchoResult run_echo(const EchoConfig& config, const assembler::FirmwareImage& firmware);

// The result as the table `lanaikit echo` prints.
std::string format_echo(const EchoConfig& config, const EchoResult& result);

// The per-size results as CSV (one row per size: latencies in us, MB/s, instructions per
// packet, the breakdown), and the latency curve as an SVG plot.
void write_echo_csv(std::ostream& out, const EchoResult& result);
std::string echo_latency_svg(const EchoResult& result, const std::string& title);

} // namespace lanaikit::sim
