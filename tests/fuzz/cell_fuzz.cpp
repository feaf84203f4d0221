// libFuzzer target over DART's cell input (firmware/dart/dart.fw, docs/dart.md): arbitrary
// ATM cells and AAL5 frames arrive at node 1 of a two-node DART cluster set up by the
// driver (host/dart/driver.h) as an application would: an attacker's connection into its
// own endpoint, and a victim process on the same node with its own endpoint and
// connection. The cells come on the attacker's VCI, on its reply VCI, or on VCIs nobody
// opened; never on the victim's (those would be the victim's legitimate traffic). The
// Operation Logic must refuse or perform each, never fault, never write host memory
// outside the attacker's endpoint (the victim's region and a guard region stay as they
// were), and afterwards a legitimate WRITE on each connection must still be deposited.
//
// Input: up to 32 records: kind (low 2 bits: 0 a one-cell message, 1 an AAL5 frame, 2 a
// cell without the end-of-SDU mark, 3 a one-cell message whose control words are made
// well-formed enough to reach the deeper checks), a VCI selector (low 2 bits: the
// attacker's VCI, its reply VCI, 40 (closed), 255 (closed, the last the card knows)),
// then 48 payload bytes, or for a frame 2 length bytes (big-endian, at most 4200) and its
// bytes. A short record ends the input.
//
// Built with -DLANAIKIT_FUZZ=ON (scripts/fuzz.sh cell); in the normal build
// cell_fuzz_replay runs the seeds and reproducers through the same function.
#include "assembler/build.h"
#include "base/bytes.h"
#include "host/dart/driver.h"
#include "host/kit/image_view.h"
#include "host/kit/setup.h"
#include "host/kit/sram.h"
#include "net/atm.h"
#include "net/atm_network.h"
#include "sim/cluster.h"
#include "sim/platform.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace lanaikit;

std::string source(const std::string& rel) { return std::string(LANAIKIT_SOURCE_DIR) + "/" + rel; }

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "cell_fuzz: %s\n", what.c_str());
  std::abort();
}

const assembler::FirmwareImage& image() {
  static const assembler::FirmwareImage built = [] {
    assembler::BuildOptions bo;
    bo.startup = LANAIKIT_CRT0;
    std::stringstream list(LANAIKIT_RUNTIME_OBJECTS);
    for (std::string item; std::getline(list, item, ';');)
      if (!item.empty()) bo.runtime.push_back(item);
    auto img = assembler::build({source("firmware/dart/dart.fw")}, bo);
    if (!img) finding("DART's image does not build: " + llvm::toString(img.takeError()));
    return std::move(*img);
  }();
  return built;
}

sim::ClusterParams cluster_params() {
  const sim::Platform dart = sim::load_platform(source("lua-scripts/platforms/dart.lua"));
  const sim::Platform vmmc = sim::load_platform(source("lua-scripts/platforms/vmmc.lua"));
  sim::ClusterParams cp = sim::cluster_params(dart, 2, sim::NicChoice::of(vmmc));
  net::AtmNetworkConfig atm;
  atm.link = dart.cells->link;
  cp.atm = atm;
  return cp;
}

constexpr uint32_t kPages = 4;
constexpr size_t kMaxRecords = 32, kMaxFrame = 4200;

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(seed + 7 * i + (i >> 8));
  return v;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const sim::ClusterParams params = cluster_params();
  sim::Cluster cluster(params);
  const kit::ImageView view(image(), "dart");
  kit::load(cluster, image());
  dart::Driver driver(cluster, view);
  host::AddressSpace sender_space(cluster.node(0).memory()), attacker_space(cluster.node(1).memory()),
      victim_space(cluster.node(1).memory());
  const dart::Endpoint sender = driver.open_endpoint(0, sender_space, kPages * 4096);
  const dart::Endpoint attacker = driver.open_endpoint(1, attacker_space, kPages * 4096);
  // A guard region mapped between the two endpoints of node 1, then the victim's.
  const host::VirtAddr guard = attacker_space.map(kPages * 4096);
  const dart::Endpoint victim = driver.open_endpoint(1, victim_space, kPages * 4096);
  const dart::Connection to_attacker = driver.connect(sender, attacker, 8);
  const dart::Connection to_victim = driver.connect(sender, victim, 8);
  const std::vector<uint8_t> victim_bytes = pattern(kPages * 4096, 0x31);
  const std::vector<uint8_t> guard_bytes = pattern(kPages * 4096, 0x77);
  victim_space.copy_in(victim.base, victim_bytes);
  attacker_space.copy_in(guard, guard_bytes);
  driver.go();
  for (uint32_t n = 0; n < 2; ++n)
    cluster.node(n).chip().on_stop([n](vm::Chip& c) {
      if (c.cpu().fault()) finding("node " + std::to_string(n) + "'s card faulted:\n" + c.cpu().fault_report());
    });

  net::CellLink& tx = cluster.atm()->node_tx(0);
  const uint16_t vcis[4] = {uint16_t(to_attacker.vci_ab), uint16_t(to_attacker.vci_ba), 40, 255};
  uint64_t id = 1;
  size_t at = 0;
  for (size_t r = 0; r < kMaxRecords && at + 2 <= size; ++r) {
    const uint8_t kind = data[at] & 3;
    const uint16_t vci = vcis[data[at + 1] & 3];
    at += 2;
    if (kind == 1) {
      if (at + 2 > size) break;
      const size_t len = std::min<size_t>(load_be16(data + at), kMaxFrame);
      at += 2;
      if (at + len > size) break;
      tx.send(net::Packet{id++, std::vector<uint8_t>(data + at, data + at + len), 0}, vci);
      at += len;
      continue;
    }
    if (at + net::kCellPayloadBytes > size) break;
    std::array<uint8_t, net::kCellPayloadBytes> payload{};
    std::copy(data + at, data + at + payload.size(), payload.begin());
    at += payload.size();
    if (kind == 3) {
      // A known opcode (0..7) and zero-filled reserved bits, so the cell gets past the first
      // refusals into address generation, the registers and the answers.
      payload[32] &= 0x07;
      payload[35] &= 0xC0;
    }
    tx.send_cell(vci, payload, id++, kind == 2 ? 0 : net::kPtiEndOfSdu);
  }

  // The hostile cells arrive at the wire's rate, faster than the card takes them: its ring
  // may overflow (counted, rx_drops). Let it drain first.
  sim::Kernel& k = cluster.kernel();
  while (tx.queued_cells() > 0 && k.now() < 100 * sim::kMillisecond) k.run_until(k.now() + 50 * sim::kMicrosecond);
  k.run_until(k.now() + 2 * sim::kMillisecond);

  // Afterwards, legitimate WRITEs on both connections (sent as the sender's card would).
  // The attacker's VCI first gets a NOP marked end-of-SDU: an AAL5 frame the hostile
  // cells left open (a cell without the mark) ends there, as it would on a real circuit,
  // so the WRITE is a one-cell message of its own.
  const std::vector<uint8_t> legit = pattern(32, 0xC4);
  auto write_cell = [&](uint32_t offset) {
    std::array<uint8_t, net::kCellPayloadBytes> p{};
    std::copy(legit.begin(), legit.end(), p.begin());
    store_be32(p.data() + 32, uint32_t(1) << 24 | 0xFFu << 16); // WRITE, mask 0xFF, direct
    store_be32(p.data() + 36, offset);
    return p;
  };
  const std::array<uint8_t, net::kCellPayloadBytes> nop{};
  tx.send_cell(uint16_t(to_attacker.vci_ab), nop, id++, net::kPtiEndOfSdu);
  tx.send_cell(uint16_t(to_attacker.vci_ab), write_cell(0x1F00), id++, net::kPtiEndOfSdu);
  tx.send_cell(uint16_t(to_victim.vci_ab), write_cell(0x2F00), id++, net::kPtiEndOfSdu);

  auto read = [](host::AddressSpace& s, uint64_t va, size_t n) {
    std::vector<uint8_t> v(n);
    s.copy_out(va, v);
    return v;
  };
  auto arrived = [&] {
    return read(attacker_space, attacker.base + 0x1F00, 32) == legit &&
           read(victim_space, victim.base + 0x2F00, 32) == legit;
  };
  const sim::Time limit = k.now() + 200 * sim::kMillisecond;
  while (!arrived() && k.now() < limit) k.run_until(k.now() + 50 * sim::kMicrosecond);
  if (!arrived()) finding("a legitimate WRITE after the hostile cells was not deposited within 200 ms");

  const std::vector<uint8_t> victim_now = read(victim_space, victim.base, victim_bytes.size());
  std::vector<uint8_t> want = victim_bytes;
  std::copy(legit.begin(), legit.end(), want.begin() + 0x2F00);
  if (victim_now != want) finding("the victim's endpoint changed beyond its legitimate WRITE");
  if (read(attacker_space, guard, guard_bytes.size()) != guard_bytes)
    finding("memory beside the attacker's endpoint changed");
  return 0;
}
