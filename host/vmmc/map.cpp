// VMMC host library: the LCP as the host sees it (docs/vmmc.md, "Host library"). Its
// constants and structures are found through the image's layout table by the kit's image
// view, never through C++ copies, so editing firmware/vmmc/*.fw needs no rebuild; this file
// resolves them once and checks that the sizes they imply make sense.
#include "host/vmmc/state.h"

namespace lanaikit::vmmc::detail {

Lcp::Lcp(const assembler::FirmwareImage& img)
    : image(img), view(image, "vmmc", "firmware/vmmc/vmmc.fw") {
  try {
    page = view.constant32("PAGE");
    go = view.constant32("VMMC_GO");
    ctl_short = view.constant32("CTL_SHORT");
    ctl_notify = view.constant32("CTL_NOTIFY");
    done_rejected = view.constant32("DONE_REJECTED");
    opt_valid = view.constant32("OPT_VALID");
    opt_node_shift = view.constant32("OPT_NODE_SHIFT");
    opt_node_mask = view.constant32("OPT_NODE_MASK");
    ipt_w = view.constant32("IPT_W");
    ipt_n = view.constant32("IPT_N");
    ipt_proc = view.constant32("IPT_PROC");

    ctl = view.global("vmmc");
    procs = view.global("vmmc_procs");
    opt = view.global("vmmc_opt");
    ipt = view.global("vmmc_ipt");
    routes = view.global("vmmc_routes");

    miss_seq = ctl.field("miss_seq").addr();
    miss_proc = ctl.field("miss_proc").addr();
    miss_vpage = ctl.field("miss_vpage").addr();
    miss_pages = ctl.field("miss_pages").addr();
    fill = ctl.field("fill").addr();
    fill_proc = ctl.field("fill_proc").addr();
    fill_count = ctl.field("fill_count").addr();
    fill_seq = ctl.field("fill_seq").addr();

    req_data = view.offset("VmmcSendReq", "data");
    req_proxy = view.offset("VmmcSendReq", "proxy");
    req_vaddr = view.offset("VmmcSendReq", "vaddr");
    req_ctl = view.offset("VmmcSendReq", "ctl");
    fill_size = view.size("VmmcFill");
    fill_vpage = view.offset("VmmcFill", "vpage");
    fill_ppage = view.offset("VmmcFill", "ppage");
    note_size = view.size("VmmcNotification");
    note_index = view.offset("VmmcNotification", "index");
    note_src = view.offset("VmmcNotification", "src");
    note_addr = view.offset("VmmcNotification", "addr");
    note_len = view.offset("VmmcNotification", "len");

    limits.max_procs = procs.count();
    limits.sq_slots = procs[0].field("sendq").count();
    limits.short_max = view.constant32("SHORT_MAX");
    limits.max_send = view.constant32("MAX_SEND");
    limits.opt_pages = view.constant32("OPT_PAGES");
    limits.ipt_pages = ipt.size();
    limits.fill_max = ctl.field("fill").count();
    limits.max_nodes = routes.count();
    limits.notify_slots = page / note_size; // the ring is one page of the process's memory
    if (limits.max_procs == 0 || limits.sq_slots == 0 ||
        (limits.sq_slots & (limits.sq_slots - 1)) != 0 || limits.opt_pages == 0 ||
        opt.size() != 4 * limits.opt_pages * limits.max_procs || limits.fill_max == 0 ||
        limits.short_max > procs[0].field("sendq")[0].field("data").size())
      throw VmmcError("vmmc: the LCP's tables have impossible sizes (MAX_PROCS " +
                      str(limits.max_procs) + ", SQ_SLOTS " + str(limits.sq_slots) +
                      ", OPT_PAGES " + str(limits.opt_pages) + ", FILL_MAX " +
                      str(limits.fill_max) + ", SHORT_MAX " + str(limits.short_max) + ")");
  } catch (const kit::KitError& e) {
    throw VmmcError(std::string(e.what()) + " (docs/vmmc.md describes what the library expects)");
  }
}

} // namespace lanaikit::vmmc::detail
