// VMMC host library: the daemons (docs/vmmc.md, "Host library", export_buffer and import).
// A process asks its local daemon; the daemon pins exported pages and opens them in the
// incoming page table, and for an import asks the exporter's daemon over the control path
// (Ethernet, Costs::control_message each way), which checks the export and its allowed
// importers, then writes the outgoing page table entries of the new proxy range.
#include "host/vmmc/state.h"

#include <algorithm>

namespace lanaikit::vmmc {

using namespace detail;

namespace {

// Bytes into SRAM by PIO as a driver writes them: whole aligned words where it can, single
// bytes (a PCI write with one byte enable) at an unaligned head or tail, so no neighbouring
// byte is rewritten.
void pio_write_bytes(sim::Node& node, host::Process& p, uint32_t at, std::span<const uint8_t> bytes) {
  size_t i = 0;
  while (i < bytes.size() && (at + i) % 4) {
    node.pio_write(p, uint32_t(at + i), bytes.subspan(i, 1));
    ++i;
  }
  const size_t words = (bytes.size() - i) / 4 * 4;
  if (words) node.pio_write(p, uint32_t(at + i), bytes.subspan(i, words));
  for (i += words; i < bytes.size(); ++i) node.pio_write(p, uint32_t(at + i), bytes.subspan(i, 1));
}

} // namespace

host::Op<ExportId> Endpoint::export_buffer(host::Process& p, VirtAddr va, uint32_t len,
                                           std::vector<EndpointId> allowed, bool notify) {
  EpState& e = *impl_;
  VmmcState& v = e.v;
  const Lcp& lcp = v.lcp;
  const uint32_t page = lcp.page;
  e.check_process(p);
  if (len == 0 || va % page || len % page)
    throw VmmcError("vmmc: export of [" + hex(va) + ", +" + str(len) +
                    "): exports are whole pages, page-aligned");
  for (VirtAddr a = va; a < va + len; a += page)
    if (!e.space->is_mapped(a))
      throw VmmcError("vmmc: export of [" + hex(va) + ", +" + str(len) + "): page " +
                      hex(a) + " is not mapped");
  sim::Node& node = e.node_ref();
  NodeState& ns = v.nodes[e.node];
  // The process asks its daemon; the daemon pins the pages and opens them in the incoming
  // page table.
  p.advance(v.costs.daemon_call);
  p.advance(e.space->pin(va, len));
  std::vector<host::PhysAddr> pages = e.space->pinned_pages(va, len);
  const uint8_t entry = uint8_t(lcp.ipt_w | (notify ? lcp.ipt_n : 0) | (e.slot & lcp.ipt_proc));
  for (size_t i = 0; i < pages.size();) {
    // One PIO write per word of consecutive entries.
    size_t j = i + 1;
    while (j < pages.size() && pages[j] == pages[j - 1] + page) ++j;
    const uint64_t first = pages[i] >> host::kPageShift;
    if (first + (j - i) > lcp.limits.ipt_pages)
      throw VmmcError("vmmc: export of [" + hex(va) + ", +" + str(len) +
                      "): physical page " + hex(first) + " is beyond the incoming page table");
    const std::vector<uint8_t> bytes(j - i, entry);
    pio_write_bytes(node, p, lcp.ipt.addr() + uint32_t(first), bytes);
    i = j;
  }
  Export x;
  x.id = ns.next_export++;
  x.slot = e.slot;
  x.va = va;
  x.len = len;
  x.pages = pages;
  x.allowed = std::move(allowed);
  x.notify = notify;
  x.visible_at = p.local();
  for (size_t i = 0; i < pages.size(); ++i)
    ns.page_owner.emplace(pages[i] >> host::kPageShift, std::make_pair(x.id, uint32_t(i)));
  const ExportId id = x.id;
  ns.exports.emplace(id, std::move(x));
  co_return id;
}

host::Op<ImportResult> Endpoint::import(host::Process& p, uint32_t node, ExportId id) {
  EpState& e = *impl_;
  VmmcState& v = e.v;
  const Lcp& lcp = v.lcp;
  e.check_process(p);
  ImportResult r;
  if (node >= v.cluster.size()) {
    r.error = "no node " + str(node) + " (the cluster has " + str(v.cluster.size()) + ")";
    co_return r;
  }
  const bool remote = node != e.node;
  // Process -> local daemon -> (Ethernet) exporter's daemon, which looks its table up now.
  p.advance(v.costs.daemon_call);
  if (remote) p.advance(v.costs.control_message);
  co_await p.sync();
  const NodeState& xs = v.nodes[node];
  const auto it = xs.exports.find(id);
  const Export* x = it != xs.exports.end() && it->second.visible_at <= p.local() ? &it->second : nullptr;
  if (!x) {
    r.error = "export " + str(id) + " on node " + str(node) + " does not exist";
  } else if (!x->allowed.empty() &&
             std::find(x->allowed.begin(), x->allowed.end(), EndpointId{e.node, e.slot}) ==
                 x->allowed.end()) {
    r.error = "export " + str(id) + " on node " + str(node) + " does not allow node " +
              str(e.node) + " slot " + str(e.slot);
  }
  std::vector<host::PhysAddr> pages;
  uint32_t len = 0;
  if (x && r.error.empty()) {
    pages = x->pages;
    len = x->len;
  }
  if (remote) p.advance(v.costs.control_message); // the answer (pages or refusal) comes back
  if (!r.error.empty()) co_return r;
  // A fresh proxy range: the lowest run of free outgoing page table entries.
  const uint32_t n = uint32_t(pages.size());
  const uint32_t total = lcp.limits.opt_pages;
  uint32_t start = total;
  for (uint32_t s = 0, run = 0; s < total; ++s) {
    run = e.proxy_used[s] ? 0 : run + 1;
    if (run == n) {
      start = s + 1 - n;
      break;
    }
  }
  if (start == total) {
    r.error = "export " + str(id) + " on node " + str(node) + " (" + str(n) +
              " pages) does not fit in the proxy space of node " + str(e.node) + " slot " +
              str(e.slot) + " (" + str(total) + " pages)";
    co_return r;
  }
  std::vector<uint8_t> words(size_t(n) * 4);
  for (uint32_t i = 0; i < n; ++i) {
    e.proxy_used[start + i] = true;
    store_be32(&words[size_t(i) * 4],
             lcp.opt_valid | (node & lcp.opt_node_mask) << lcp.opt_node_shift | uint32_t(pages[i] >> host::kPageShift));
  }
  const uint32_t opt = lcp.opt.addr() + (e.slot * total + start) * 4;
  e.node_ref().pio_write(p, opt, words);
  Import imp;
  imp.proxy = start * lcp.page;
  imp.len = len;
  imp.node = node;
  imp.id = id;
  e.imports.push_back(imp);
  r.ok = true;
  r.proxy = imp.proxy;
  r.len = len;
  co_return r;
}

} // namespace lanaikit::vmmc
