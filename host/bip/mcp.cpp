// BIP host library: the MCP as the host sees it (docs/bip.md, "Host library"). Every
// constant and offset comes from the image's layout table through the kit's image view, so
// editing firmware/bip/*.fw needs no rebuild of the library.
#include "host/bip/state.h"

namespace lanaikit::bip::detail {

namespace {

// The shift that puts a byte field at `offset` into its big-endian word at `word`.
uint32_t byte_shift(uint32_t word, uint32_t offset, const char* field) {
  if (offset < word || offset >= word + 4)
    throw BipError(std::string("bip: BipSendDesc.") + field + " is not in the word of 'dest' (the library writes dest, tag and kind with one PIO write)");
  return (3 - (offset - word)) * 8;
}

} // namespace

Mcp::Mcp(const assembler::FirmwareImage& img) : image(img), view(image, "bip", "firmware/bip/bip.fw") {
  try {
    go = view.constant32("BIP_GO");
    max_nodes = view.constant32("MAX_NODES");
    max_tags = view.constant32("MAX_TAGS");
    short_max = view.constant32("SHORT_MAX");
    max_pkt = view.constant32("MAX_PKT");
    max_ring = view.constant32("MAX_RING");
    send_copy = view.constant32("SendKind.COPY");
    send_dma = view.constant32("SendKind.DMA");
    send_long = view.constant32("SendKind.LONG");
    rv_ok = view.constant32("Rv.OK");
    rv_truncated = view.constant32("Rv.TRUNCATED");
    rv_in_ring = view.constant32("Rv.IN_RING");
    rv_lost = view.constant32("Rv.LOST");
    header_bytes = view.size("BipHeader");

    ctl = view.global("bip");
    routes = ctl.field("routes");
    sendq = ctl.field("sendq");
    recv = ctl.field("recv");
    send_slots = sendq.count();
    slot_bytes = sendq.elem_size();
    const uint32_t desc = view.offset("BipSendSlot", "desc");
    d_seq = desc + view.offset("BipSendDesc", "seq");
    const uint32_t dest = view.offset("BipSendDesc", "dest");
    d_head = desc + dest / 4 * 4;
    dest_shift = byte_shift(dest / 4 * 4, dest, "dest");
    tag_shift = byte_shift(dest / 4 * 4, view.offset("BipSendDesc", "tag"), "tag");
    kind_shift = byte_shift(dest / 4 * 4, view.offset("BipSendDesc", "kind"), "kind");
    d_len = desc + view.offset("BipSendDesc", "len");
    d_addr0 = desc + view.offset("BipSendDesc", "addr0");
    d_len0 = desc + view.offset("BipSendDesc", "len0");
    d_addr1 = desc + view.offset("BipSendDesc", "addr1");
    d_len1 = desc + view.offset("BipSendDesc", "len1");
    d_list = desc + view.offset("BipSendDesc", "list");
    d_nblocks = desc + view.offset("BipSendDesc", "nblocks");
    d_pkt = desc + view.offset("BipSendDesc", "pkt");
    s_data = view.offset("BipSendSlot", "data");

    r_seq = recv.field("seq").addr();
    r_tag = recv.field("tag").addr();
    r_maxlen = recv.field("maxlen").addr();
    r_taken = recv.field("taken").addr();
    r_addr0 = recv.field("addr0").addr();
    r_len0 = recv.field("len0").addr();
    r_addr1 = recv.field("addr1").addr();
    r_len1 = recv.field("len1").addr();
    r_list = recv.field("list").addr();
    r_nblocks = recv.field("nblocks").addr();
    tag_taken = ctl.field("tag_taken").addr();

    h_src = view.offset("BipHeader", "pkt") + view.offset("PacketHeader", "src");
    h_len = view.offset("BipHeader", "pkt") + view.offset("PacketHeader", "len");
    h_index = view.offset("BipHeader", "index");
    h_retires = view.offset("BipHeader", "retires");
    sd_consumed = view.offset("BipSendDone", "consumed");
    sd_failed = view.offset("BipSendDone", "failed");
    sd_last_failed = view.offset("BipSendDone", "last_failed");
    sd_size = view.size("BipSendDone");
    rd_seq = view.offset("BipRecvDone", "seq");
    rd_status = view.offset("BipRecvDone", "status");
    rd_len = view.offset("BipRecvDone", "len");
    rd_src = view.offset("BipRecvDone", "src");
    rd_size = view.size("BipRecvDone");
    block_size = view.size("BipBlock");
  } catch (const kit::KitError& e) {
    throw BipError(e.what());
  }
  if (routes.count() != max_nodes || ctl.field("rings").count() != max_tags)
    throw BipError("bip: the MCP's routes or rings do not have MAX_NODES and MAX_TAGS entries");
  if (send_slots == 0 || (send_slots & (send_slots - 1)) != 0)
    throw BipError("bip: SEND_SLOTS (" + str(send_slots) + ") must be a power of two");
}

} // namespace lanaikit::bip::detail
