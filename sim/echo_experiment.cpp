#include "sim/echo_experiment.h"

#include "base/bytes.h"

#include "firmware/echo/echo.h"
#include "host/model/process.h"
#include "sim/profile_report.h"
#include "report/csv.h"
#include "report/svg_plot.h"
#include "sim/timeline.h"
#include "sim/utilisation.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace lanaikit::sim {

namespace {

using host::Process;
using host::Task;

// The big-endian word at `addr` of host memory (where the firmware DMAs its records).
uint32_t be32(const host::PhysicalMemory& m, uint64_t addr) {
  uint8_t b[4];
  m.read(addr, b);
  return load_be32(b);
}

void sram_be32(vm::Chip& chip, uint32_t addr, uint32_t v) {
  uint8_t b[4];
  store_be32(b, v);
  chip.host_write_sram(addr, b);
}

std::vector<uint8_t> pattern(uint32_t size, uint64_t message) {
  std::vector<uint8_t> p(size);
  for (uint32_t k = 0; k < size; ++k) p[k] = uint8_t(message * 131 + k * 7 + size);
  return p;
}

struct Ctx {
  const EchoConfig& config;
  Cluster& cluster;
  std::vector<uint64_t> host_buf;            // per node
  std::vector<EchoSizeResult> results;
  MessageTrace trace;   // the message node 0 -> node 1 in flight
  uint32_t seq0 = 0, seq1 = 0;
  uint64_t completed = 0;     // round trips done, for the time-limit message
  Time last_completion = 0;
  bool done = false;
  std::string failure;
};

void breakdown(Ctx& c, EchoSizeResult& r);
std::string us(Time t);

Task pinger(Process& p, Ctx& c) {
  Node& a = c.cluster.node(0);
  uint64_t message = 0;
  for (uint32_t size : c.config.sizes) {
    EchoSizeResult r;
    r.bytes = size;
    for (uint32_t it = 0; it < c.config.warmup + c.config.iterations; ++it) {
      const std::vector<uint8_t> payload = pattern(size, ++message);
      const Time t0 = p.local();
      c.trace.start(t0);
      a.pio_write(p, ECHO_SEND_DATA, payload);
      a.pio_write_word(p, ECHO_CTL + ECHO_CTL_SEND_LEN, size);
      a.pio_write_word(p, ECHO_CTL + ECHO_CTL_SEND_DEST, 1);
      a.pio_write_reg(p, vm::regs::HOST_SIG, 1);
      c.trace.posted(p.local());
      const uint32_t want = ++c.seq0;
      const uint64_t done_at = c.host_buf[0] + ECHO_MAX_DATA;
      co_await p.wait(a.memory_watch(), [&] { return be32(a.memory(), done_at) == want; });
      const Time rtt = p.local() - t0;
      ++c.completed;
      c.last_completion = p.local();
      std::vector<uint8_t> back(size);
      a.memory().read(c.host_buf[0], back);
      if (back != payload || be32(a.memory(), done_at + 4) != size || be32(a.memory(), done_at + 8) != 1)
        throw std::runtime_error("message " + std::to_string(message) + " of " +
                                 std::to_string(size) + " bytes came back different");
      if (it >= c.config.warmup) r.one_way.push_back(rtt / 2);
    }
    breakdown(c, r); // the last message of this size, still in the trace
    c.results.push_back(std::move(r));
  }
  c.done = true;
  p.kernel().stop();
}

Task echoer(Process& p, Ctx& c) {
  Node& b = c.cluster.node(1);
  const uint64_t done_at = c.host_buf[1] + ECHO_MAX_DATA;
  for (;;) {
    const uint32_t want = ++c.seq1;
    co_await p.wait(b.memory_watch(), [&] { return be32(b.memory(), done_at) == want; });
    if (!c.trace.complete()) c.trace.seen(p.local());
    const uint32_t len = be32(b.memory(), done_at + 4);
    std::vector<uint8_t> payload(len);
    b.memory().read(c.host_buf[1], payload);
    b.pio_write(p, ECHO_SEND_DATA, payload);
    b.pio_write_word(p, ECHO_CTL + ECHO_CTL_SEND_LEN, len);
    b.pio_write_word(p, ECHO_CTL + ECHO_CTL_SEND_DEST, 0);
    b.pio_write_reg(p, vm::regs::HOST_SIG, 1);
  }
}

// Follows the last node 0 -> node 1 message through the chips' events.
void breakdown(Ctx& c, EchoSizeResult& r) {
  r.breakdown = c.trace.breakdown();
  r.send_insns = r.breakdown.send_insns;
  r.recv_insns = r.breakdown.recv_insns;
}

std::string us(Time t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", double(t) / double(kMicrosecond));
  return buf;
}

} // namespace

EchoResult run_echo(const EchoConfig& config, const assembler::FirmwareImage& firmware) {
  if (config.cluster.nodes < 2) throw std::invalid_argument("echo needs at least two nodes");
  for (uint32_t s : config.sizes)
    if (s > ECHO_MAX_DATA) throw std::invalid_argument("sizes are at most 65536 bytes");
  Cluster cluster(config.cluster);
  // Shared by the nodes, so that a fault report names functions and lines.
  const auto image = std::make_shared<const assembler::FirmwareImage>(firmware);
  std::vector<std::unique_ptr<vm::Profiler>> profilers;
  Ctx c{config, cluster, {}, {}, MessageTrace(cluster, 0, 1), 0, 0, 0, 0, false, {}};
  for (uint32_t i = 0; i < cluster.size(); ++i) {
    Node& n = cluster.node(i);
    n.load(image);
    const uint64_t pages = (ECHO_MAX_DATA + ECHO_COMPLETION_BYTES + host::kPageSize - 1) / host::kPageSize;
    const std::vector<uint64_t> got = n.memory().allocate_pages(pages);
    c.host_buf.push_back(got.front() << host::kPageShift);
    sram_be32(n.chip(), ECHO_CTL + ECHO_CTL_NODE, i);
    sram_be32(n.chip(), ECHO_CTL + ECHO_CTL_HOST_BUF, uint32_t(c.host_buf.back()));
    for (uint32_t j = 0; j < cluster.size() && j < ECHO_MAX_NODES; ++j) {
      const auto& route = cluster.network().route(i, j);
      if (route.size() > ECHO_MAX_ROUTE) throw std::invalid_argument("route longer than 8 hops");
      sram_be32(n.chip(), ECHO_CTL + ECHO_CTL_ROUTE_LEN + 4 * j, uint32_t(route.size()));
      n.chip().host_write_sram(ECHO_CTL + ECHO_CTL_ROUTES + ECHO_MAX_ROUTE * j, route);
    }
    n.chip().set_max_batch(config.max_batch);
    n.chip().set_doze(config.doze);
    n.chip().set_take_held(config.take_held);
    if (config.profile) {
      vm::Chip& chip = n.chip();
      profilers.push_back(std::make_unique<vm::Profiler>(chip.cpu(), [&chip] { return chip.local_time(); }));
      vm::Profiler& prof = *profilers.back();
      prof.set_dma_busy([&chip] { return chip.dma_busy(); });
      for (const auto& h : config.handlers) {
        const auto at = firmware.symbol(h);
        if (!at) throw std::invalid_argument("no symbol '" + h + "' in the firmware to profile as a handler");
        prof.add_handler(h, *at);
      }
      chip.set_instrument(&prof);
    }
      n.chip().on_stop([&c, &cluster, &n](vm::Chip&) {
      c.failure = "the firmware stopped: " + n.report();
      cluster.kernel().stop();
    });
    n.start();
  }
  Timeline timeline(cluster, config.trace, config.pcap);
  for (uint32_t i = 0; i < profilers.size(); ++i) timeline.add_profiler(i, profilers[i].get());
  cluster.node(0).spawn("pinger", [&c](Process& p) { return pinger(p, c); });
  cluster.node(1).spawn("echoer", [&c](Process& p) { return echoer(p, c); });

  const auto wall0 = std::chrono::steady_clock::now();
  Kernel& k = cluster.kernel();
  k.run_until(config.time_limit);
  const auto wall1 = std::chrono::steady_clock::now();
  if (!c.failure.empty()) throw std::runtime_error("" + c.failure);
  if (!c.done) {
    // A run that completes round trips was stopped by the limit, not by the firmware.
    const uint64_t total =
        uint64_t(config.sizes.size()) * (uint64_t(config.warmup) + config.iterations);
    std::string msg = "not finished after " + us(config.time_limit) + " simulated us: " +
                      std::to_string(c.completed) + " of " + std::to_string(total) +
                      " round trips done";
    if (c.completed > 0)
      msg += " (the last at " + us(c.last_completion) +
             " us): the time limit stopped a run that was progressing; raise it "
             "(--time-limit-ms)";
    else
      msg += " (runaway or stuck firmware?)";
    msg += "; where the chips are:\n";
    for (uint32_t i = 0; i < cluster.size(); ++i) msg += cluster.node(i).report();
    throw std::runtime_error(msg);
  }

  EchoResult result;
  for (auto& r : c.results) {
    std::vector<Time> sorted = r.one_way;
    std::sort(sorted.begin(), sorted.end());
    r.min = sorted.front();
    r.max = sorted.back();
    r.median = sorted[sorted.size() / 2];
    r.mb_per_s = double(r.bytes) / (double(r.median) / double(kSecond)) / 1e6;
  }
  result.sizes = std::move(c.results);
  result.simulated = k.now();
  result.wall_seconds = std::chrono::duration<double>(wall1 - wall0).count();
  for (uint32_t i = 0; i < cluster.size(); ++i) {
    result.guest_instructions += cluster.node(i).chip().cpu().instructions();
    result.dozed_instructions += cluster.node(i).chip().doze_counters().skipped_instructions;
    uint8_t b[4];
    cluster.node(i).chip().host_read_sram(ECHO_CTL + ECHO_CTL_REJECTED, b);
    result.rejected += uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3];
  }
  timeline.finish();
  for (uint32_t i = 0; i < profilers.size() && i < config.callgrind.size(); ++i)
    if (config.callgrind[i])
      write_callgrind_profile(*config.callgrind[i], "lanaikit echo (" + cluster.node(i).name() + ")",
                              profile_tables(firmware, *profilers[i]));
  std::vector<const vm::Profiler*> profs;
  for (auto& p : profilers) profs.push_back(p.get());
  result.utilisation = format_utilisation(utilisation(cluster, profs));
  for (uint32_t i = 0; i < profilers.size(); ++i) {
    result.handlers.push_back(profilers[i]->summaries());
    result.profiles.push_back(format_profile(firmware, *profilers[i], cluster.node(i).name()));
    result.tables.push_back(profile_tables(firmware, *profilers[i]));
    cluster.node(i).chip().set_instrument(nullptr);
  }
  result.events = k.events_run();
  result.agent_batches = k.agent_batches();
  result.trace_hash = k.trace_hash();
  return result;
}

std::string format_echo(const EchoConfig& config, const EchoResult& r) {
  std::ostringstream o;
  o << "echo ping-pong, node 0 <-> node 1 through one switch (" << config.iterations
    << " round trips per size after " << config.warmup << " warm-up)\n\n";
  o << "| bytes | one-way us (median) | min | max | MB/s | send insns | recv insns |\n";
  o << "|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& s : r.sizes) {
    char mbs[32];
    std::snprintf(mbs, sizeof mbs, "%.1f", s.mb_per_s);
    o << "| " << s.bytes << " | " << us(s.median) << " | " << us(s.min) << " | " << us(s.max)
      << " | " << mbs << " | " << s.send_insns << " | " << s.recv_insns << " |\n";
  }
  o << "\nsend insns: sender firmware from the doorbell to the send DMA start; recv insns:\n"
       "receiver firmware from the packet's tail to the completion-record DMA start.\n"
       "MB/s: bytes / one-way time (ping-pong bandwidth; the payload goes by PIO).\n";
  o << "\none-way latency breakdown, node 0 -> node 1 (us)\n\n";
  o << "| bytes | host send | PCI | CPU send | wire | switch+engines | CPU recv | DMA recv | "
       "host recv | total |\n";
  o << "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& s : r.sizes) {
    const MessageBreakdown& b = s.breakdown;
    o << "| " << s.bytes << " | " << us(b.host_send) << " | " << us(b.pci_send) << " | "
      << us(b.cpu_send) << " | " << us(b.wire) << " | " << us(b.network) << " | "
      << us(b.cpu_recv) << " | " << us(b.dma_recv) << " | " << us(b.host_recv) << " | "
      << us(b.total) << " |\n";
  }
  if (!r.handlers.empty()) {
    o << "\nper-handler instructions (profiler, exact per call)\n\n";
    o << "| node | handler | calls | insns median | min | max | cycles median | DMA-wait cycles median |\n";
    o << "|---:|---|---:|---:|---:|---:|---:|---:|\n";
    for (size_t n = 0; n < r.handlers.size(); ++n)
      for (const auto& h : r.handlers[n])
        o << "| " << n << " | " << h.name << " | " << h.instructions.count << " | "
          << h.instructions.median << " | " << h.instructions.min << " | " << h.instructions.max
          << " | " << h.cycles.median << " | " << h.dma_wait_cycles.median << " |\n";
  }
  o << "\n" << r.utilisation;
  char line[256];
  const double sim_us = double(r.simulated) / double(kMicrosecond);
  std::snprintf(line, sizeof line,
                "\nsimulated %.1f us in %.3f s of wall time: %.0f simulated us per wall second; "
                "%llu guest instructions (%.1f M/s)\n",
                sim_us, r.wall_seconds, r.wall_seconds > 0 ? sim_us / r.wall_seconds : 0.0,
                static_cast<unsigned long long>(r.guest_instructions),
                r.wall_seconds > 0 ? double(r.guest_instructions) / r.wall_seconds / 1e6 : 0.0);
  o << line;
  std::snprintf(line, sizeof line, "%llu events, %llu CPU batches, trace hash %016llx, %llu packets rejected\n",
                static_cast<unsigned long long>(r.events),
                static_cast<unsigned long long>(r.agent_batches),
                static_cast<unsigned long long>(r.trace_hash),
                static_cast<unsigned long long>(r.rejected));
  o << line;
  return o.str();
}

} // namespace lanaikit::sim

namespace lanaikit::sim {

void write_echo_csv(std::ostream& out, const EchoResult& r) {
  const std::vector<std::string> cols = {
      "bytes", "one_way_us_median", "one_way_us_min", "one_way_us_max", "mb_per_s",
      "send_insns", "recv_insns", "host_send_us", "pci_us", "cpu_send_us", "wire_us",
      "switch_engines_us", "cpu_recv_us", "dma_recv_us", "host_recv_us", "total_us"};
  auto us = [](Time t) { return report::CsvCell(double(t) / 1e6); };
  std::vector<std::vector<report::CsvCell>> rows;
  for (const auto& s : r.sizes) {
    const MessageBreakdown& b = s.breakdown;
    rows.push_back({int64_t(s.bytes), us(s.median), us(s.min), us(s.max), s.mb_per_s,
                    int64_t(s.send_insns), int64_t(s.recv_insns), us(b.host_send), us(b.pci_send),
                    us(b.cpu_send), us(b.wire), us(b.network), us(b.cpu_recv), us(b.dma_recv),
                    us(b.host_recv), us(b.total)});
  }
  report::write_csv(out, cols, rows);
}

std::string echo_latency_svg(const EchoResult& r, const std::string& title) {
  report::PlotSpec spec;
  spec.title = title;
  spec.x_label = "message size (bytes)";
  spec.y_label = "one-way latency (us)";
  spec.log_x = true;
  spec.log_y = true;
  report::Series median{"median", {}}, fw{"firmware (send + receive CPU)", {}};
  for (const auto& s : r.sizes) {
    median.points.emplace_back(double(std::max<uint32_t>(s.bytes, 1)), double(s.median) / 1e6);
    fw.points.emplace_back(double(std::max<uint32_t>(s.bytes, 1)),
                           double(s.breakdown.cpu_send + s.breakdown.cpu_recv) / 1e6);
  }
  spec.series = {median, fw};
  return report::render_svg(spec);
}

} // namespace lanaikit::sim
