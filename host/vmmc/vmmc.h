// VMMC's basic library, driver and daemon (docs/vmmc.md): the host side of the VMMC
// control program (firmware/vmmc/vmmc.fw) on a simulated cluster.
//
// One `Vmmc` per cluster loads the LCP on every node, writes its set-up (node index, routes,
// host memory size) and runs one driver process per node, which answers the LCP's
// interrupts: TLB misses (pin pages, insert up to 32 translations) and notifications (run
// the receiving endpoint's handler). An `Endpoint` is one user process's VMMC state. Its
// blocking calls are host::Op coroutines, awaited from a host::Process on the endpoint's
// node:
//
//   auto& a = vmmc.open(0), & b = vmmc.open(1);
//   VirtAddr rbuf = b.alloc(4096);           // untimed set-up
//   ... in b's process:  ExportId e = co_await b.export_buffer(p, rbuf, 4096, {});
//   ... in a's process:  ImportResult imp = co_await a.import(p, 1, e);
//                        SendResult r = co_await a.send(p, sbuf, imp.proxy, 4, {});
//
// Errors a program can make (an import the exporter does not allow, a proxy range outside
// an import) come back as results; misuse of the API (a buffer not page-aligned, a process
// on the wrong node) throws VmmcError.
#pragma once

#include "assembler/image.h"
#include "host/kit/word_wait.h"
#include "host/model/address_space.h"
#include "host/model/process.h"
#include "sim/cluster.h"
#include "sim/platform.h"
#include "event/time.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace lanaikit::vmmc {

using host::VirtAddr;
using ProxyAddr = uint32_t;
using ExportId = uint32_t;

class VmmcError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Host software costs. A default-constructed Costs is free (every cost 0);
// `costs_from_platform` takes the platform's `host.costs` entries of the same names (ns;
// `pin_call`, `pin_page` for `pin`) and fills the missing ones with lanaikit's estimates
// (the numbers of lua-scripts/platforms/vmmc.lua: send_post 0 (PIO writes only),
// daemon_call 20 us, control_message 150 us, signal 10 us, pin 5 us + 1 us/page), listing
// them in `defaulted`. PIO costs are not here: they are the node's PCI parameters.
struct Costs {
  sim::Time send_post = 0;       // whole cost of posting a send, PIO writes included
  sim::Time daemon_call = 0;     // a process asking its local daemon (export, import)
  sim::Time control_message = 0; // one daemon-to-daemon message over the Ethernet
  sim::Time signal = 0;          // delivering a notification to the process's handler
  host::PageCost pin;            // the driver pinning pages
  std::vector<std::string> defaulted; // costs_from_platform: names not in the platform
};
Costs costs_from_platform(const sim::Platform& platform);

struct EndpointId {
  uint32_t node = 0;
  uint32_t slot = 0; // process slot in the node's LCP
  bool operator==(const EndpointId&) const = default;
};

struct ImportResult {
  bool ok = false;
  std::string error;   // why not (e.g. "export 3 on node 1 does not allow node 0 slot 1")
  ProxyAddr proxy = 0; // first proxy address of the imported buffer
  uint32_t len = 0;
};

struct SendOptions {
  bool async = false;  // return once posted; test()/wait() for the buffer
  bool notify = false; // raise a notification at the receiver after delivery
};

struct SendResult {
  bool ok = false;          // false: rejected by the library (proxy range outside an
  std::string error;        //   import, length) or by the LCP (completion word bit 31)
  uint32_t seq = 0;         // request number: the handle for test()/wait()
  bool is_short = false;    // sent as a short request (data copied by PIO)
};

// One notification, mapped back from the record's physical address (the message's last
// byte) through the exporter's pinned pages. export_id 0: the page is in no export of this
// node (then `offset` is that physical address).
struct Notification {
  ExportId export_id = 0;
  uint32_t offset = 0; // first byte of the message within the export
  uint32_t len = 0;
  uint32_t src_node = 0;
};

class Vmmc;

class Endpoint {
public:
  EndpointId id() const;
  sim::Node& node();
  host::AddressSpace& space();

  // Untimed set-up: maps fresh zeroed pages (page-aligned) in this process's space.
  VirtAddr alloc(uint64_t bytes);
  void write(VirtAddr va, std::span<const uint8_t> bytes); // untimed, as the CPU would
  std::vector<uint8_t> read(VirtAddr va, uint64_t len);

  // Exports [va, va + len) (page-aligned, whole pages) to the importers in `allowed`
  // (empty: any). Pins the pages and writes the incoming page table through the local
  // daemon. With `notify`, notifying messages that land in it raise notifications.
  host::Op<ExportId> export_buffer(host::Process& p, VirtAddr va, uint32_t len,
                                   std::vector<EndpointId> allowed, bool notify = false);
  // Imports export `id` of `node`: the daemons' handshake over the control path, then the
  // outgoing page table entries for the new proxy range. Returns ok=false (with the reason)
  // for an export that does not exist or does not allow this endpoint.
  host::Op<ImportResult> import(host::Process& p, uint32_t node, ExportId id);

  // Sends len bytes from [src, src + len) to proxy address dst. Short (<= SHORT_MAX bytes,
  // the payload read from process memory now: PageFault if unmapped) or long is chosen
  // here. A range outside this endpoint's imports, or a length outside 1..MAX_SEND, is
  // refused (ok=false) and nothing is posted. Synchronous sends return when the send
  // buffer may be reused: a short one once posted, a long one when its completion word
  // says so (ok=false if the LCP rejected it).
  host::Op<SendResult> send(host::Process& p, VirtAddr src, ProxyAddr dst, uint32_t len,
                            SendOptions opt = {});
  // Is request `seq` complete? (Short: from posting on; long: its completion word.)
  bool test(uint32_t seq) const;
  // Waits for request `seq` (at once for a short one). ok=false if the completion word was
  // seen carrying the request's rejection: always for a waited-for long request, for a
  // short one only if its (later) rejection word was seen meanwhile; the word holds the
  // latest status only, the counters are authoritative.
  host::Op<SendResult> wait(host::Process& p, uint32_t seq);

  // Notifications: `handler` runs (after Costs::signal) in the driver's context for each
  // notification, in order, as an event at the driver's time; without a handler they
  // queue for next_notification().
  void on_notification(std::function<void(const Notification&)> handler);
  host::Op<Notification> next_notification(host::Process& p);

  // Waits until the host memory at va holds `value` (a 32-bit big-endian word), e.g. the
  // flag word at the end of a message: spinning on a cache location, as VMMC programs do.
  host::Op<void> wait_word(host::Process& p, VirtAddr va, uint32_t value);
  // Waits until any of several words holds (kit::wait_words: each word compared with its
  // value by ==, ~=, >= or <): the next descriptor of each of several receive rings, a
  // credit count. Returns the index of the first that holds.
  host::Op<size_t> wait_words(host::Process& p, std::vector<kit::WordWait> conditions);

  // LCP counters of this process slot and the interface (untimed reads of SRAM).
  struct Counters {
    uint32_t bad_proxy, bad_len, bad_vaddr, notify_overflow;
    uint32_t consumed, done, notified; // requests taken, last completion word, notifications
  };
  Counters counters() const;

  // Requests posted so far (the last seq handed out), and how often the library had to
  // read `consumed` by PIO (every send-queue slot looked used).
  uint32_t posted() const;
  uint64_t consumed_reads() const;
  // Posts one raw send-queue entry with none of the library's checks: what a process that
  // bypasses the library can write into its own queue (tests of the LCP's protection).
  // `ctl` is the entry's ctl word as is; a SHORT entry carries `payload` (whole words, at
  // most SHORT_MAX bytes). Returns the entry's seq. The LCP decides what happens.
  host::Op<uint32_t> post_raw(host::Process& p, ProxyAddr dst, VirtAddr src, uint32_t ctl,
                              std::vector<uint8_t> payload = {});

private:
  friend class Vmmc;
  struct Impl;
  explicit Endpoint(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;

public:
  ~Endpoint();
};

// One per cluster. Endpoints live as long as the Vmmc; a process should not use an endpoint
// while another does (their PIO writes would interleave at different local times). The
// Vmmc must outlive every run of the cluster, later ones included: its driver processes stay
// on the nodes, and one may be in the middle of serving an interrupt (a PIO read) when a
// run stops at a time limit. (A driver waiting for an interrupt is inert once it is gone.)
class Vmmc {
public:
  // Loads `lcp` on every node and starts the chips; the cluster's kernel has not run yet.
  Vmmc(sim::Cluster& cluster, const assembler::FirmwareImage& lcp, Costs costs);
  ~Vmmc();

  // A new endpoint on `node` (throws VmmcError when all MAX_PROCS slots are used).
  Endpoint& open(uint32_t node);

  struct InterfaceCounters {
    uint32_t sent, received, bad_crc, bad_magic, bad_len, bad_dest, tlb_misses, tlb_fills;
    uint32_t bad_fill; // translations the LCP refused (0 if the LCP does not count them)
  };
  InterfaceCounters counters(uint32_t node) const;

  // The LCP's sizes, read from its layout table (docs/vmmc.md, "Constants").
  struct Limits {
    uint32_t max_procs, sq_slots, short_max, max_send, opt_pages, ipt_pages, fill_max,
        max_nodes, notify_slots;
  };
  const Limits& limits() const;
  const assembler::FirmwareImage& lcp() const;
  sim::Cluster& cluster();

private:
  friend class Endpoint;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace lanaikit::vmmc
