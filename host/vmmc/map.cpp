// VMMC host library: the layout map (docs/vmmc.md, "Host library"). The LCP's structures
// are found through the image's layout table, never through C++ constants, so editing
// firmware/vmmc/vmmc.fw needs no rebuild; this file reads that table into a Map once and
// checks that the sizes it implies make sense.
#include "host/vmmc/state.h"

namespace lanaikit::vmmc::detail {

namespace {

constexpr uint32_t kMaxSend = 8u << 20; // MAX_SEND: "long sends up to 8 MB"

uint32_t global(const assembler::FirmwareImage& img, const char* name, uint32_t& size) {
  std::optional<uint32_t> at = img.symbol(name);
  const assembler::GlobalLayout* g = img.layout_table.find_global(name);
  if (!at && g && g->pinned_address) at = *g->pinned_address;
  if (!at) {
    std::string msg = "vmmc: the LCP image has no global '";
    msg.append(name).append("' (is it firmware/vmmc/vmmc.fw?)");
    throw VmmcError(msg);
  }
  size = g ? g->size : 0;
  if (size == 0)
    for (const assembler::Symbol* s : img.symbols_named(name))
      if (s->size) {
        size = s->size;
        break;
      }
  if (size == 0) {
    std::string msg = "vmmc: the LCP image does not give the size of '";
    msg.append(name).append("'");
    throw VmmcError(msg);
  }
  return *at;
}

} // namespace

Map resolve(const assembler::FirmwareImage& img) {
  try {
    Map m;
    uint32_t size = 0;
    const assembler::StructLayout& ctl = img.layout("VmmcCtl");
    m.ctl = global(img, "vmmc", size);
    auto c = [&](const char* f) { return m.ctl + ctl.field(f).offset; };
    m.c_node = c("node");
    m.c_host_pages = c("host_pages");
    m.c_go = c("go");
    m.c_miss_seq = c("miss_seq");
    m.c_miss_proc = c("miss_proc");
    m.c_miss_vpage = c("miss_vpage");
    m.c_miss_pages = c("miss_pages");
    m.c_fill_proc = c("fill_proc");
    m.c_fill_count = c("fill_count");
    m.c_fill = c("fill");
    m.c_fill_seq = c("fill_seq");
    m.c_sent = c("sent");
    m.c_received = c("received");
    m.c_bad_crc = c("bad_crc");
    m.c_bad_magic = c("bad_magic");
    m.c_bad_len = c("bad_len");
    m.c_bad_dest = c("bad_dest");
    m.c_tlb_misses = c("tlb_misses");
    m.c_tlb_fills = c("tlb_fills");
    if (ctl.has_field("bad_fill")) m.c_bad_fill = c("bad_fill");
    const assembler::StructLayout& fill = img.layout("VmmcFill");
    m.fill_size = fill.size;
    m.f_vpage = fill.field("vpage").offset;
    m.f_ppage = fill.field("ppage").offset;
    m.limits.fill_max = ctl.field("fill").size / fill.size;

    const assembler::StructLayout& proc = img.layout("VmmcProc");
    m.procs = global(img, "vmmc_procs", size);
    m.proc_size = proc.size;
    m.limits.max_procs = size / proc.size;
    m.p_active = proc.field("active").offset;
    m.p_done_addr = proc.field("done_addr").offset;
    m.p_notify_ring = proc.field("notify_ring").offset;
    m.p_notify_slots = proc.field("notify_slots").offset;
    m.p_notify_consumed = proc.field("notify_consumed").offset;
    m.p_consumed = proc.field("consumed").offset;
    m.p_done = proc.field("done").offset;
    m.p_notified = proc.field("notified").offset;
    m.p_bad_proxy = proc.field("bad_proxy").offset;
    m.p_bad_len = proc.field("bad_len").offset;
    m.p_bad_vaddr = proc.field("bad_vaddr").offset;
    m.p_notify_overflow = proc.field("notify_overflow").offset;
    m.p_sendq = proc.field("sendq").offset;

    const assembler::StructLayout& req = img.layout("VmmcSendReq");
    m.req_size = req.size;
    m.r_data = req.field("data").offset;
    m.r_proxy = req.field("proxy").offset;
    m.r_vaddr = req.field("vaddr").offset;
    m.r_ctl = req.field("ctl").offset;
    m.r_seq = req.field("seq").offset;
    m.limits.short_max = req.field("data").size;
    m.limits.sq_slots = proc.field("sendq").size / req.size;
    m.limits.max_send = kMaxSend;

    m.opt = global(img, "vmmc_opt", size);
    m.limits.opt_pages = m.limits.max_procs ? size / 4 / m.limits.max_procs : 0;
    m.ipt = global(img, "vmmc_ipt", size);
    m.limits.ipt_pages = size;

    const assembler::StructLayout& route = img.layout("VmmcRoute");
    m.routes = global(img, "vmmc_routes", size);
    m.route_size = route.size;
    m.route_len = route.field("len").offset;
    m.route_hops = route.field("hops").offset;
    m.route_max = route.field("hops").size;
    m.limits.max_nodes = size / route.size;

    const assembler::StructLayout& note = img.layout("VmmcNotification");
    m.note_size = note.size;
    m.n_index = note.field("index").offset;
    m.n_src = note.field("src").offset;
    m.n_addr = note.field("addr").offset;
    m.n_len = note.field("len").offset;
    m.limits.notify_slots = kPage / note.size;

    if (m.limits.max_procs == 0 || m.limits.sq_slots == 0 ||
        (m.limits.sq_slots & (m.limits.sq_slots - 1)) != 0 || m.limits.opt_pages == 0 ||
        m.limits.fill_max == 0)
      throw VmmcError("vmmc: the LCP's tables have impossible sizes (MAX_PROCS " +
                      str(m.limits.max_procs) + ", SQ_SLOTS " + str(m.limits.sq_slots) +
                      ", OPT_PAGES " + str(m.limits.opt_pages) + ", FILL_MAX " +
                      str(m.limits.fill_max) + ")");
    return m;
  } catch (const std::out_of_range& e) {
    std::string msg = "vmmc: the LCP image does not follow docs/vmmc.md: ";
    msg.append(e.what());
    throw VmmcError(msg);
  }
}

} // namespace lanaikit::vmmc::detail
