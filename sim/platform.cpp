#include "sim/platform.h"

#include "event/kernel.h"

#include <cmath>
#include <stdexcept>

namespace lanaikit::sim {

namespace {

// Reads fields of one platform file, recording the ones that took a default.
struct Reader {
  Platform& p;

  void note_default(const LuaTable& t, const std::string& key) {
    p.defaulted.push_back(t.path().empty() ? key : t.path() + "." + key);
  }

  // A duration given in nanoseconds (any non-negative number), rounded to the picosecond.
  Time ns(const LuaTable& t, const std::string& key) {
    const double v = t.number(key);
    if (!std::isfinite(v) || v < 0 || v > 1e15)
      t.fail(key, "expected a duration in ns, 0 .. 10^15, got " + std::to_string(v));
    return Time(std::llround(v * double(kNanosecond)));
  }
  Time ns_or(const LuaTable& t, const std::string& key, Time fallback) {
    if (t.has(key)) return ns(t, key);
    note_default(t, key);
    return fallback;
  }
  std::optional<Time> ns_if(const LuaTable& t, const std::string& key) {
    if (!t.has(key)) return std::nullopt;
    return ns(t, key);
  }

  // A rate in units of 10^6 per second (MB/s, Mb/s), as an integer per second.
  uint64_t mega_rate(const LuaTable& t, const std::string& key) {
    const double v = t.number(key);
    if (!std::isfinite(v) || v <= 0 || v > 1e6)
      t.fail(key, "expected a positive rate in units of 10^6/s (at most 10^6), got " +
                      std::to_string(v));
    return uint64_t(std::llround(v * 1e6));
  }

  uint32_t u32(const LuaTable& t, const std::string& key, uint64_t min = 0) {
    const int64_t v = t.integer(key);
    if (v < int64_t(min) || v > int64_t(UINT32_MAX))
      t.fail(key, "expected an integer " + std::to_string(min) + " .. 4294967295, got " +
                      std::to_string(v));
    return uint32_t(v);
  }
  uint32_t u32_or(const LuaTable& t, const std::string& key, uint32_t fallback, uint64_t min = 0) {
    if (t.has(key)) return u32(t, key, min);
    note_default(t, key);
    return fallback;
  }
  std::optional<uint32_t> u32_if(const LuaTable& t, const std::string& key, uint64_t min = 0) {
    if (!t.has(key)) return std::nullopt;
    return u32(t, key, min);
  }

  // A table with string keys only, each a number; `read` converts one value.
  template <class Read>
  void named(const LuaTable& t, Read read) {
    if (t.length() != 0) t.fail("[1]", "expected named entries only (name = value)");
    for (const std::string& k : t.keys()) read(k);
  }

  // A DMA bandwidth curve: a number (MB/s for any block size) or a list of
  // { block_bytes = B, mb_per_s = R } points, sizes strictly increasing.
  std::vector<host::BandwidthPoint> curve(const LuaTable& t, const std::string& key) {
    if (t.is_number(key)) {
      const double v = t.number(key);
      if (!(v > 0) || !std::isfinite(v)) t.fail(key, "expected a bandwidth in MB/s > 0");
      return {{1, v}};
    }
    if (!t.is_table(key))
      t.fail(key, "expected a number (MB/s) or a list of { block_bytes = B, mb_per_s = R }");
    const LuaTable list = t.table(key);
    if (list.length() == 0 || !list.keys().empty())
      t.fail(key, "expected a number (MB/s) or a list of { block_bytes = B, mb_per_s = R }");
    std::vector<host::BandwidthPoint> points;
    for (size_t i = 1; i <= list.length(); ++i) {
      const LuaTable pt = list.table_at(i);
      pt.only({"block_bytes", "mb_per_s"});
      const uint64_t block = pt.positive("block_bytes");
      const double mb = pt.number("mb_per_s");
      if (!(mb > 0) || !std::isfinite(mb))
        pt.fail("mb_per_s", "expected a bandwidth in MB/s > 0, got " + std::to_string(mb));
      if (!points.empty() && block <= points.back().block_bytes)
        pt.fail("block_bytes", "block sizes must increase strictly, got " +
                                   std::to_string(block) + " after " +
                                   std::to_string(points.back().block_bytes));
      points.push_back({block, mb});
    }
    return points;
  }

  // SONET ("sonet": 26/27 of the line rate carries cells) or a plain cell stream (1/1).
  void framing(const LuaTable& t, net::CellLinkConfig& c) {
    const std::string f = t.string("framing");
    if (f == "sonet") {
      c.cell_rate_num = 26;
      c.cell_rate_den = 27;
    } else if (f == "plain") {
      c.cell_rate_num = 1;
      c.cell_rate_den = 1;
    } else {
      t.fail("framing", "expected \"sonet\" or \"plain\", got \"" + f + "\"");
    }
  }

  void nic(const LuaTable& t) {
    NicParams n;
    t.only({"clock_hz", "sram_bytes", "cost"});
    n.clock_hz = t.positive("clock_hz");
    const uint64_t sram = t.positive("sram_bytes");
    if (sram % 4 != 0 || sram > 0x80000000ull)
      t.fail("sram_bytes", "must be a multiple of 4 up to 2 GB, got " + std::to_string(sram));
    n.sram_bytes = uint32_t(sram);
    if (const auto cost = t.table_if("cost")) {
      cost->only({"base", "load_use", "mmio"});
      auto cycles = [&](const char* key, uint32_t fallback) {
        const int64_t v = cost->integer_or(key, fallback);
        if (v < 0 || v > 1000000) cost->fail(key, "expected 0..1000000 cycles");
        return uint32_t(v);
      };
      n.costs.base_cycles = cycles("base", n.costs.base_cycles);
      n.costs.load_use_cycles = cycles("load_use", n.costs.load_use_cycles);
      n.costs.mmio_cycles = cycles("mmio", n.costs.mmio_cycles);
    } else {
      note_default(t, "cost");
    }
    p.nic = n;
  }

  void pci(const LuaTable& t) {
    host::PciParams c;
    t.only({"pio_read_ns", "pio_write_ns", "pio_write_issue_ns", "pio_write_latency_ns",
            "dma_setup_ns", "dma", "dma_to_host", "dma_from_host", "dma_burst_bytes",
            "pio_store_bytes"});
    c.pio_read_latency = ns_or(t, "pio_read_ns", 0);
    // Papers give one number for a posted write (the cost of a store as the host sees
    // it): it is both the CPU's issue cost and the write's bus time, unless the file
    // gives the two separately.
    const std::optional<Time> write = ns_if(t, "pio_write_ns");
    auto write_part = [&](const char* key) {
      if (t.has(key)) return ns(t, key);
      if (write) return *write;
      note_default(t, key);
      return Time(0);
    };
    c.pio_write_issue = write_part("pio_write_issue_ns");
    c.pio_write_latency = write_part("pio_write_latency_ns");
    c.dma_setup = ns_or(t, "dma_setup_ns", 0);
    if (t.has("pio_store_bytes")) {
      const int64_t w = t.integer("pio_store_bytes");
      if (w != 4 && w != 8) t.fail("pio_store_bytes", "expected 4 or 8");
      c.pio_store_bytes = uint32_t(w);
    }
    const bool both = t.has("dma");
    if (!both && !(t.has("dma_to_host") && t.has("dma_from_host")))
      t.fail("dma", "give a DMA bandwidth curve: `dma` for both directions, or both "
                    "`dma_to_host` and `dma_from_host`");
    const auto shared = both ? curve(t, "dma") : std::vector<host::BandwidthPoint>{};
    c.dma_to_host = t.has("dma_to_host") ? curve(t, "dma_to_host") : shared;
    c.dma_from_host = t.has("dma_from_host") ? curve(t, "dma_from_host") : shared;
    if (t.has("dma_burst_bytes")) {
      const int64_t burst = t.integer("dma_burst_bytes");
      if (burst < 0) t.fail("dma_burst_bytes", "expected 0 (never cut) or a positive size");
      c.dma_burst_bytes = uint64_t(burst);
    } else {
      note_default(t, "dma_burst_bytes");
    }
    try {
      c.validate();
    } catch (const std::invalid_argument& e) {
      t.fail("", e.what());
    }
    p.pci = c;
  }

  void link(const LuaTable& t) {
    net::LinkConfig c;
    t.only({"mb_per_s", "latency_ns", "chunk_bytes", "slack_bytes", "stop_bytes", "go_bytes",
            "tx_fifo_bytes", "crc_bits"});
    c.bytes_per_s = mega_rate(t, "mb_per_s");
    c.latency_ps = ns_or(t, "latency_ns", c.latency_ps);
    c.chunk_bytes = u32_or(t, "chunk_bytes", c.chunk_bytes, 1);
    c.slack_bytes = u32_or(t, "slack_bytes", c.slack_bytes, 1);
    c.stop_bytes = u32_or(t, "stop_bytes", c.stop_bytes, 1);
    c.go_bytes = u32_or(t, "go_bytes", c.go_bytes);
    c.tx_fifo_bytes = u32_or(t, "tx_fifo_bytes", c.tx_fifo_bytes, 1);
    if (t.has("crc_bits") && t.integer("crc_bits") != 8)
      t.fail("crc_bits", "the link model appends a CRC-8: expected 8");
    try {
      Kernel k;
      net::Link check(k, c, p.name + ".link");
    } catch (const std::invalid_argument& e) {
      t.fail("", e.what());
    }
    p.link = c;
  }

  void net_switch(const LuaTable& t) {
    net::SwitchConfig c;
    t.only({"ports", "fall_through_ns"});
    c.ports = u32(t, "ports", 1);
    if (c.ports > 256) t.fail("ports", "a route byte names at most 256 ports");
    c.fall_through_ps = ns_or(t, "fall_through_ns", c.fall_through_ps);
    p.net_switch = c;
  }

  void host(const LuaTable& t) {
    HostParams h;
    t.only({"cpu_hz", "page_bytes", "interrupt_latency_ns", "cache_bytes", "cache_line_bytes",
            "cache_coherent_io", "costs"});
    if (t.has("cpu_hz")) h.cpu_hz = t.positive("cpu_hz");
    h.page_bytes = u32_if(t, "page_bytes", 1);
    if (h.page_bytes && (*h.page_bytes & (*h.page_bytes - 1)) != 0)
      t.fail("page_bytes", "expected a power of two, got " + std::to_string(*h.page_bytes));
    h.interrupt_latency = ns_if(t, "interrupt_latency_ns");
    h.cache_bytes = u32_if(t, "cache_bytes", 1);
    h.cache_line_bytes = u32_if(t, "cache_line_bytes", 1);
    if (t.has("cache_coherent_io")) h.cache_coherent_io = t.boolean("cache_coherent_io");
    if (const auto costs = t.table_if("costs"))
      named(*costs, [&](const std::string& k) { h.costs[k] = ns(*costs, k); });
    p.host = h;
  }

  // One cell link: line_mbit_per_s, framing; the latency is shared (`latency`).
  net::CellLinkConfig cell_link(const LuaTable& t, Time latency) {
    net::CellLinkConfig c;
    c.line_bits_per_s = mega_rate(t, "line_mbit_per_s");
    framing(t, c);
    c.latency_ps = latency;
    try {
      Kernel k;
      net::CellLink check(k, c, p.name + ".cells");
    } catch (const std::invalid_argument& e) {
      t.fail("", e.what());
    }
    return c;
  }

  void cells(const LuaTable& t) {
    CellParams c;
    t.only({"cell_bytes", "payload_bytes", "line_mbit_per_s", "framing", "latency_ns",
            "projected"});
    // The cell geometry is ATM's and fixed in the model; the file may state it (checked).
    if (t.has("cell_bytes") && t.integer("cell_bytes") != net::kCellBytes)
      t.fail("cell_bytes", "ATM cells are 53 bytes");
    if (t.has("payload_bytes") && t.integer("payload_bytes") != net::kCellPayloadBytes)
      t.fail("payload_bytes", "ATM cell payloads are 48 bytes");
    const Time latency = ns_or(t, "latency_ns", c.link.latency_ps);
    c.link = cell_link(t, latency);
    if (const auto list = t.table_if("projected")) {
      if (!list->keys().empty()) list->fail("", "expected a list of links");
      for (size_t i = 1; i <= list->length(); ++i) {
        const LuaTable one = list->table_at(i);
        one.only({"line_mbit_per_s", "framing"});
        c.projected.push_back(cell_link(one, latency));
      }
    }
    p.cells = c;
  }

  // Kept raw: each protocol's table is read by its own code; a registered check runs now.
  void protocols(const LuaTable& t) {
    if (t.length() != 0) t.fail("[1]", "expected protocol sections by name (dart = { ... })");
    for (const std::string& name : t.keys()) {
      if (!t.is_table(name)) t.table(name); // fails: "expected a table, got ..."
      auto [it, fresh] = p.protocols.emplace(name, PlatformSection(p.file, t.table(name)));
      (void)fresh;
      if (const PlatformSectionCheck check = platform_section_check(name)) check(it->second);
    }
  }
};

} // namespace

Platform load_platform(const std::string& path) {
  Platform p;
  p.file = std::make_shared<LuaFile>(path);
  const LuaTable& root = p.file->root();
  root.only({"name", "description", "nodes", "nic", "pci", "link", "switch", "host", "cells",
             "protocol"});
  p.name = root.string("name");
  p.description = root.has("description") ? root.string("description") : "";
  Reader r{p};
  p.nodes = r.u32_if(root, "nodes", 1);
  if (const auto t = root.table_if("nic")) r.nic(*t);
  if (const auto t = root.table_if("pci")) r.pci(*t);
  if (const auto t = root.table_if("link")) r.link(*t);
  if (const auto t = root.table_if("switch")) r.net_switch(*t);
  if (const auto t = root.table_if("host")) r.host(*t);
  if (const auto t = root.table_if("cells")) r.cells(*t);
  if (const auto t = root.table_if("protocol")) r.protocols(*t);
  return p;
}

const PlatformSection& protocol_section(const Platform& platform, const std::string& name) {
  const auto it = platform.protocols.find(name);
  if (it == platform.protocols.end()) {
    const std::string file = platform.file ? platform.file->name() : platform.name;
    throw LuaError(file + ": no `protocol." + name + "` section (the " + name +
                   " protocol's parameters)");
  }
  return it->second;
}

} // namespace lanaikit::sim
