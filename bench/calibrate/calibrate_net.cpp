// calibrate_net: the link, switch and ATM cell-link models built from the platform files,
// measured in simulated time and printed next to the papers' numbers.
//
//   single-link throughput by packet size; one-hop and one-switch latency with its
//   breakdown (VMMC and Hamlyn); many-to-one through a switch; wormhole blocking; the ATM
//   cell link's rate and DART's 32-byte message at 140, 155 and 622 Mb/s.
//
// Usage: calibrate_net [--platforms DIR] [--quick]. Output: markdown on stdout; deterministic.
#include "calibrate.h"

#include "net/atm.h"
#include "net/link.h"
#include "net/switch.h"
#include "net/topology.h"
#include "event/kernel.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>

using namespace lanaikit;
using namespace lanaikit::calibrate;
using net::Chunk;
using net::LinkConfig;
using net::Packet;
using net::SwitchConfig;
using sim::Kernel;
using sim::Time;

namespace {

// --quick (the smoke test): less traffic per measurement, same tables.
bool quick = false;

// Records when each packet's head and tail were taken, and its payload size.
struct Recorder : net::PacketSink {
  explicit Recorder(Kernel& k) : k(k) {}
  struct Arrival {
    uint64_t id = 0;
    uint64_t bytes = 0;
    uint32_t status = 0;
    Time head = -1, tail = -1;
  };
  uint32_t accept(const Chunk& c) override {
    if (c.head()) {
      got.push_back({});
      got.back().id = c.packet->id;
      got.back().head = k.now();
    }
    got.back().bytes += c.length;
    if (c.tail) {
      got.back().tail = k.now();
      got.back().status = c.packet->status;
    }
    return c.whole();
  }
  Kernel& k;
  std::vector<Arrival> got;
};

Packet payload_packet(uint64_t id, size_t n) {
  Packet p;
  p.id = id;
  p.bytes.assign(n, uint8_t(id));
  return p;
}
std::vector<uint8_t> payload(size_t n) { return std::vector<uint8_t>(n, 0xA5); }

std::string ns(Time t) { return fmt("%.1f", double(t) / double(sim::kNanosecond)); }

// ---------------------------------------------------------------------------------------
void link_throughput(const LinkConfig& link) {
  Table t({"payload", "packets", "model MB/s (payload)", "model MB/s (wire, with CRC)",
           "S/(S+1) x rate", "paper"});
  for (uint64_t s = 8; s <= 65536; s *= 2) {
    const uint64_t n = std::max<uint64_t>(16, (quick ? 16 << 10 : 256 << 10) / s);
    Kernel k;
    net::Link l(k, link);
    Recorder r(k);
    l.set_sink(&r);
    for (uint64_t i = 0; i < n; ++i) l.send(payload_packet(i, s));
    k.run();
    // Steady state: from the first tail to the last, n - 1 packets arrived.
    const Time span = r.got.back().tail - r.got.front().tail;
    const double rate = double(link.bytes_per_s) / 1e6;
    t.row({size_name(s), std::to_string(n), mbs((n - 1) * s, span), mbs((n - 1) * (s + 1), span),
           fmt("%.1f", rate * double(s) / double(s + 1)), "160 (\"1.28 Gb/s per direction\")"});
  }
  heading("### VMMC link: throughput of back-to-back packets on one link");
  t.print();
  note("A packet on the wire is its payload and one CRC-8 byte (no route byte on a direct "
       "link), so payload throughput is S/(S+1) of the 160 MB/s line; the wire itself runs "
       "at exactly 160 MB/s at every size (per-byte timing, no per-packet gap: the model has "
       "no Myrinet GAP/IDLE symbols or packet-type field).");
}

// ---------------------------------------------------------------------------------------
struct Latency {
  Time direct, via_switch;
};

Latency one_packet(const LinkConfig& link, const SwitchConfig& sw, size_t s) {
  Latency out{};
  {
    Kernel k;
    net::Link l(k, link);
    Recorder r(k);
    l.set_sink(&r);
    l.send(payload_packet(1, s));
    k.run();
    out.direct = r.got.at(0).tail;
  }
  {
    Kernel k;
    auto net = net::build_single_switch(k, 2, link, sw);
    Recorder r(k);
    net->node_rx(1).set_sink(&r);
    net->node_tx(0).send(net->make_packet(0, 1, 1, payload(s)));
    k.run();
    out.via_switch = r.got.at(0).tail;
  }
  return out;
}

Time wire(const LinkConfig& link, uint64_t bytes) {
  return Time((unsigned __int128)bytes * uint64_t(sim::kSecond) / link.bytes_per_s);
}

void latency_table(const std::string& platform, const LinkConfig& link, const SwitchConfig& sw,
                   const std::vector<size_t>& sizes, const std::string& paper_switch) {
  Table t({"payload", "path", "serialization (ns)", "propagation (ns)", "head chunk at switch (ns)",
           "fall-through (ns)", "sum (ns)", "model (ns)", "switch hop adds (ns)", "paper"});
  for (size_t s : sizes) {
    const Latency m = one_packet(link, sw, s);
    // Direct: S payload + CRC serialized, one propagation.
    const Time ser = wire(link, s + 1);
    t.row({size_name(s), "one link", ns(ser), ns(link.latency_ps), "-", "-",
           ns(ser + link.latency_ps), ns(m.direct), "-", "-"});
    // Through the switch: the route byte rides the first link; the switch routes once the
    // head chunk (up to chunk_bytes, plus the CRC if it is also the tail) has arrived, then
    // falls through and streams the rest behind it; the route byte is stripped.
    const uint64_t first = std::min<uint64_t>(link.chunk_bytes, s + 1);
    const uint64_t head = first + (s + 1 <= link.chunk_bytes ? 1 : 0);
    const Time sum = 2 * link.latency_ps + wire(link, head) + sw.fall_through_ps + ser;
    t.row({size_name(s), "link, switch, link", ns(ser), ns(2 * link.latency_ps), ns(wire(link, head)),
           ns(sw.fall_through_ps), ns(sum), ns(m.via_switch), ns(m.via_switch - m.direct),
           paper_switch});
  }
  heading("### " + platform + ": one-way latency of one packet, node to node");
  t.print();
  const Latency small = one_packet(link, sw, sizes.front()), big = one_packet(link, sw, sizes.back());
  note("Wire slope: " +
       fmt("%.2f", double(big.direct - small.direct) / double(sizes.back() - sizes.front()) / 1000.0) +
       " ns/byte on one link (" + fmt("%.0f", double(link.bytes_per_s) / 1e6) + " MB/s)." +
       (platform == "Hamlyn" ? " Paper: \"12.5ns/byte to move it across the network at 80MB/s\"." : ""));
}

// The switch hop for a small packet as the chunk size shrinks (a model artifact).
void chunk_effect(const LinkConfig& base, const SwitchConfig& sw, size_t s) {
  Table t({"chunk_bytes", "one link (ns)", "via switch (ns)", "switch hop adds (ns)"});
  for (uint32_t chunk : {32u, 8u, 1u}) {
    LinkConfig link = base;
    link.chunk_bytes = chunk;
    link.tx_fifo_bytes = std::max(link.tx_fifo_bytes, chunk);
    const Latency m = one_packet(link, sw, s);
    t.row({std::to_string(chunk) + (chunk == base.chunk_bytes ? " (platform)" : " (what-if)"),
           ns(m.direct), ns(m.via_switch), ns(m.via_switch - m.direct)});
  }
  heading("### Hamlyn: the switch hop of a " + std::to_string(s) +
          "-byte packet against the link model's chunk size");
  t.print();
  note("A switch hop costs fall-through + one more propagation + the wire time of the head "
       "chunk, which the model must receive before routing. Real Myrinet switches route on "
       "the first byte; with 1-byte chunks the model's hop is 0.5 us + 50 ns + one byte. "
       "The paper's \"Switch 0.5\" (Table 4) is its fall-through alone.");
}

// ---------------------------------------------------------------------------------------
void many_to_one(const LinkConfig& link, const SwitchConfig& sw) {
  constexpr uint32_t kDst = 7;
  const uint64_t kPackets = quick ? 4 : 64, kSize = 1024;
  Table t({"senders", "bytes sent", "bytes received", "lost", "aggregate MB/s",
           "per sender MB/s (min .. max)", "max slack buffer (bytes, of 256)", "STOPs",
           "time stopped (us, sum)"});
  for (uint32_t senders = 2; senders <= 7; ++senders) {
    Kernel k;
    auto net = net::build_single_switch(k, 8, link, sw);
    Recorder r(k);
    net->node_rx(kDst).set_sink(&r);
    for (uint32_t s = 0; s < senders; ++s)
      for (uint64_t i = 0; i < kPackets; ++i)
        net->node_tx(s).send(net->make_packet(s, kDst, uint64_t(s) << 32 | i, payload(kSize)));
    k.run();
    uint64_t received = 0;
    std::map<uint32_t, uint64_t> per;
    for (const auto& a : r.got) {
      if (a.status == 0) received += a.bytes;
      per[uint32_t(a.id >> 32)] += a.bytes;
    }
    const Time span = r.got.back().tail - r.got.front().head;
    // Each sender's share over the time until its own last packet arrived.
    double lo = 1e18, hi = 0;
    for (uint32_t s = 0; s < senders; ++s) {
      Time last = 0;
      for (const auto& a : r.got)
        if (uint32_t(a.id >> 32) == s) last = std::max(last, a.tail);
      const double mb = mb_per_s(per[s], last - r.got.front().head);
      lo = std::min(lo, mb);
      hi = std::max(hi, mb);
    }
    uint32_t max_buf = 0;
    uint64_t stops = 0;
    Time stopped = 0;
    for (uint32_t s = 0; s < senders; ++s) {
      const auto& c = net->node_tx(s).counters();
      max_buf = std::max(max_buf, c.max_buffered_bytes);
      stops += c.stops;
      stopped += c.time_stopped_ps;
    }
    const uint64_t sent = uint64_t(senders) * kPackets * kSize;
    t.row({std::to_string(senders), std::to_string(sent), std::to_string(received),
           std::to_string(sent - received), mbs(received, span),
           fmt("%.1f", lo) + " .. " + fmt("%.1f", hi), std::to_string(max_buf),
           std::to_string(stops), us(stopped)});
  }
  heading("### VMMC switch: many senders to one output (" + std::to_string(kPackets) +
          " packets of 1 KB each)");
  t.print();
  note("The output link runs at its full rate (1024/1025 of 160 MB/s = 159.8 MB/s of payload) "
       "whatever the number of senders; round robin shares it equally (each sender's rate is "
       "measured until its own last packet arrived, so the last to finish sees about "
       "aggregate / senders); waiting inputs fill their slack buffers, STOP their senders, "
       "and nothing is lost. No paper gives contention figures: this checks the model.");
}

// ---------------------------------------------------------------------------------------
void wormhole(const LinkConfig& link, const SwitchConfig& sw) {
  // Node 0 holds output 3 with a long packet; node 1 wants output 3 too; node 2 goes to
  // the free output 4.
  constexpr size_t kLong = 8192, kShort = 1024;
  const Time later = 5 * sim::kMicrosecond;
  struct Run {
    Time a_tail = -1, b_tail = -1, c_tail = -1;
  };
  auto run = [&](bool a, bool b, bool c) {
    Kernel k;
    auto net = net::build_single_switch(k, 5, link, sw);
    Recorder r3(k), r4(k);
    net->node_rx(3).set_sink(&r3);
    net->node_rx(4).set_sink(&r4);
    if (a) net->node_tx(0).send(net->make_packet(0, 3, 0xA, payload(kLong)));
    if (b)
      k.schedule_at(later, [&] { net->node_tx(1).send(net->make_packet(1, 3, 0xB, payload(kShort))); });
    if (c)
      k.schedule_at(later, [&] { net->node_tx(2).send(net->make_packet(2, 4, 0xC, payload(kShort))); });
    k.run();
    Run out;
    for (const auto& x : r3.got) (x.id == 0xA ? out.a_tail : out.b_tail) = x.tail;
    for (const auto& x : r4.got) out.c_tail = x.tail;
    return out;
  };
  const Run all = run(true, true, true);
  const Run b_alone = run(false, true, false);
  const Run c_alone = run(false, false, true);
  // B's head chunk (route byte + 31 payload bytes) reaches the switch, then falls through:
  // that is when it asks for output 3.
  const Time request = later + link.latency_ps + wire(link, link.chunk_bytes) + sw.fall_through_ps;
  // A's tail leaves the switch's output link one propagation before it reaches node 3.
  const Time release = all.a_tail - link.latency_ps;
  Table t({"packet", "alone: arrives (us)", "with the others: arrives (us)", "delay (us)",
           "holder's remaining tail time (us)"});
  t.row({"A: node 0 -> 3, 8 KB, at 0 (holds output 3)", "-", us(all.a_tail), "-", "-"});
  t.row({"B: node 1 -> 3, 1 KB, at 5 us (blocked)", us(b_alone.b_tail), us(all.b_tail),
         us(all.b_tail - b_alone.b_tail), us(release - request)});
  t.row({"C: node 2 -> 4, 1 KB, at 5 us (free output)", us(c_alone.c_tail), us(all.c_tail),
         us(all.c_tail - c_alone.c_tail), "-"});
  heading("### VMMC switch: wormhole blocking");
  t.print();
  note("B requests output 3 at " + us(request) + " us (head chunk in, plus fall-through); A's "
       "tail leaves the output at " + us(release) + " us. B's delay equals the holder's "
       "remaining tail time: its bytes wait in its input's slack buffer (its sender STOPped) "
       "and follow A's tail back to back. C, on another output, is not delayed at all.");
}

// ---------------------------------------------------------------------------------------
void atm(const sim::CellParams& cells) {
  struct Rate {
    std::string name;
    net::CellLinkConfig cfg;
    std::string paper;
  };
  std::vector<Rate> rates{{"140 Mb/s TAXI (TCA-100, plain)", cells.link,
                           "24.5 (software prototype, no switch; 30 through one ASX-100)"}};
  const char* projections[] = {"under 10 (projected, one fast switch)",
                               "under 3 (projected, one fast switch)"};
  for (size_t i = 0; i < cells.projected.size() && i < 2; ++i)
    rates.push_back({fmt("%.2f", double(cells.projected[i].line_bits_per_s) / 1e6) +
                         " Mb/s SONET (26/27)",
                     cells.projected[i], projections[i]});

  Table t({"link", "cells/s", "cell time (us)", "32-byte DART message: one raw cell, wire + propagation (us)",
           "1 KB block: control cell + 22 AAL5 cells (us)", "paper, application to application (us)"});
  Table g({"link", "32 B", "1 KB", "9180 B", "64 KB - 1", "line rate (MB/s)"});
  for (const Rate& r : rates) {
    Time one = 0, block = 0;
    {
      Kernel k;
      net::CellLinkConfig cfg = r.cfg;
      cfg.raw_vcis = {1};
      net::CellLink l(k, cfg);
      Recorder rec(k);
      l.set_sink(&rec);
      std::array<uint8_t, net::kCellPayloadBytes> cell{}; // 32 data + 16 control bytes
      l.send_cell(1, cell, 1);
      k.run();
      one = rec.got.at(0).tail;
    }
    {
      Kernel k;
      net::CellLinkConfig cfg = r.cfg;
      cfg.raw_vcis = {1};
      net::CellLink l(k, cfg);
      Recorder rec(k);
      l.set_sink(&rec);
      std::array<uint8_t, net::kCellPayloadBytes> cell{};
      l.send_cell(1, cell, 1);
      l.send(payload_packet(2, 1024), 2);
      k.run();
      block = rec.got.at(1).tail;
    }
    Kernel pk;
    net::CellLink probe(pk, r.cfg);
    t.row({r.name, fmt("%.0f", probe.cell_rate()), us(probe.cells_time(1)), us(one), us(block),
           r.paper});
    std::vector<std::string> row{r.name};
    for (size_t s : {32u, 1024u, 9180u, 65535u}) {
      Kernel k;
      net::CellLink l(k, r.cfg);
      Recorder rec(k);
      l.set_sink(&rec);
      const int frames = quick ? 3 : 16;
      for (int i = 0; i < frames; ++i) l.send(payload_packet(i, s));
      k.run();
      row.push_back(mbs((frames - 1) * s, rec.got.back().tail - rec.got.front().tail));
    }
    row.push_back(fmt("%.2f", double(r.cfg.line_bits_per_s) / 8e6));
    g.row(std::move(row));
  }
  heading("### DART: the ATM cell link");
  t.print();
  note("The model's part of DART's latency is the wire: one 53-byte cell and the propagation "
       "(50 ns, lanaikit default). The paper's figures are whole application-to-application "
       "times (in-kernel software at 140 Mb/s; projected DART hardware at 155 and 622 Mb/s), "
       "for the firmware and host models to fill; the wire leaves 24.5 - 3.08 = 21.4 us to "
       "the 140 Mb/s prototype's software and adapter.");
  heading("### ATM: AAL5 goodput (payload MB/s of back-to-back frames)");
  g.print();
  note("Cell tax: 48 of 53 bytes carry payload, and AAL5 pads each frame to a multiple of 48 "
       "with an 8-byte trailer (a 32-byte frame fills one cell: 32/53 of the cell rate).");
}

} // namespace

int main(int argc, char** argv) {
  const std::string dir = platforms_dir(argc, argv);
  for (int i = 1; i < argc; ++i) quick = quick || std::string(argv[i]) == "--quick";
  const sim::Platform vmmc = load(dir, "vmmc");
  const sim::Platform hamlyn = load(dir, "hamlyn");
  const sim::Platform dart = load(dir, "dart");

  heading("## calibrate_net: the link, switch and cell-link models vs the papers");
  note("Simulated time; platform files `vmmc.lua`, `hamlyn.lua`, `dart.lua`. MB = 10^6 "
       "bytes. Link latency 50 ns, chunk 32 bytes and slack 256 bytes are lanaikit defaults "
       "in every platform (no paper gives them); VMMC's switch fall-through 0.5 us is "
       "Hamlyn's figure, lanaikit's default.");

  link_throughput(*vmmc.link);
  latency_table("VMMC", *vmmc.link, *vmmc.net_switch, {4, 1024},
                "(no figure; Hamlyn: about 0.5 us)");
  latency_table("Hamlyn", *hamlyn.link, *hamlyn.net_switch, {4, 16, 1024},
                "about 0.5 us (Table 4: Switch 0.5)");
  chunk_effect(*hamlyn.link, *hamlyn.net_switch, 16);
  many_to_one(*vmmc.link, *vmmc.net_switch);
  wormhole(*vmmc.link, *vmmc.net_switch);
  atm(*dart.cells);
  return 0;
}
