// The LCP test bench (docs/protocols.md, "Testing a control program"): a protocol's firmware
// driven by GoogleTest without its host library. Loads the image on a cluster of the
// protocol's platform, finds every SRAM place through the kit's image view, plays the
// driver through per-node interrupt callbacks, runs the kernel until a condition holds
// (a CPU fault fails the test with its report), and profiles the handlers.
//
//   test::LcpBench h(image, "lua-scripts/platforms/vmmc.lua", 2, "vmmc");
//   h.setup("vmmc.node", "vmmc_routes");       // node index and route table on every node
//   h.poke(0, "vmmc.go", h.constant("VMMC_GO"));
//   h.on_interrupt(0, [&] { if (h.take_isr(0, regs::LAN0_SIG_BIT)) ...; });
//   h.start();  h.run([&] { return h.peek(1, "vmmc.received") == 3; });
//
// Environment: LK_TRACE=1 prints every chip event; LK_PROFILE=1 the per-line profile in
// print_profile.
#pragma once

#include "../chip/firmware.h"

#include "base/bytes.h"
#include "host/kit/image_view.h"
#include "host/kit/setup.h"
#include "host/kit/sram.h"
#include "sim/cluster.h"
#include "sim/platform.h"
#include "sim/profile_report.h"
#include "vm/chip_regs.h"
#include "vm/profiler.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace lanaikit::test {

class LcpBench {
public:
  LcpBench(const assembler::FirmwareImage& image, const std::string& platform, uint32_t nodes,
           std::string who, const std::function<void(sim::ClusterParams&)>& tweak = {})
      : image_(image), view_(image_, std::move(who)) {
    sim::ClusterParams cp = sim::cluster_params(sim::load_platform(source(platform)), nodes);
    if (tweak) tweak(cp);
    cluster_ = std::make_unique<sim::Cluster>(cp);
    kit::load(*cluster_, image_);
  }
  // A cluster the test describes itself (a platform without a `nic`, an ATM network).
  LcpBench(const assembler::FirmwareImage& image, const sim::ClusterParams& cp, std::string who)
      : image_(image), view_(image_, std::move(who)) {
    cluster_ = std::make_unique<sim::Cluster>(cp);
    kit::load(*cluster_, image_);
  }

  const kit::ImageView& view() const { return view_; }
  const assembler::FirmwareImage& image() const { return image_; }
  sim::Cluster& cluster() { return *cluster_; }
  sim::Node& node(uint32_t n) { return cluster_->node(n); }
  uint32_t size() const { return cluster_->size(); }

  // Names and constants.
  kit::Ref ref(const std::string& path) const { return view_.ref(path); }
  uint32_t addr(const std::string& path) const { return view_.ref(path).addr(); }
  uint32_t constant(const std::string& name) const { return view_.constant32(name); }
  uint32_t offset(const std::string& s, const std::string& field) const {
    return view_.offset(s, field);
  }

  // Untimed SRAM access by path ("vmmc.sent", "vmmc_procs[1].consumed") or address.
  uint64_t peek(uint32_t n, const std::string& path) { return kit::peek(node(n), ref(path)); }
  void poke(uint32_t n, const std::string& path, uint64_t v) { kit::poke(node(n), ref(path), v); }
  uint32_t peek32(uint32_t n, uint32_t addr) { return kit::peek32(node(n), addr); }
  void poke32(uint32_t n, uint32_t addr, uint32_t v) { kit::poke32(node(n), addr, v); }
  // Host physical memory.
  uint32_t mem32(uint32_t n, uint64_t addr) {
    uint8_t b[4];
    node(n).memory().read(addr, b);
    return load_be32(b);
  }
  std::vector<uint8_t> mem(uint32_t n, uint64_t addr, uint64_t len) {
    std::vector<uint8_t> v(len);
    node(n).memory().read(addr, v);
    return v;
  }

  // Every node: its index into `node_path`, its routes into the table at `routes_path`.
  void setup(const std::string& node_path, const std::string& routes_path) {
    for (uint32_t n = 0; n < size(); ++n) {
      poke(n, node_path, n);
      kit::write_routes(*cluster_, n, ref(routes_path));
    }
  }

  // The driver stand-in: `fn` runs (untimed, after the platform's interrupt latency) each
  // time node n's chip raises its interrupt line; unmask the ISR bits it serves first.
  void on_interrupt(uint32_t n, uint32_t eimr_bits, std::function<void()> fn) {
    node(n).chip().host_write_reg(vm::regs::EIMR, eimr_bits);
    node(n).on_interrupt(std::move(fn));
  }
  // Reads ISR; if `bit` is set, clears it (write 1) and returns true.
  bool take_isr(uint32_t n, uint32_t bit) {
    vm::Chip& chip = node(n).chip();
    if (!(chip.host_read_reg(vm::regs::ISR) & bit)) return false;
    chip.host_write_reg(vm::regs::ISR, bit);
    return true;
  }

  // Starts the chips; with `ready_path`, runs until that word is 1 on every node (the
  // firmware finished its initialisation), failing the test if it never is.
  void start(const std::string& ready_path = {}, sim::Time limit = 20 * sim::kMillisecond) {
    kit::start(*cluster_);
    if (ready_path.empty()) return;
    auto ready = [&] {
      for (uint32_t i = 0; i < size(); ++i)
        if (peek(i, ready_path) != 1) return false;
      return true;
    };
    while (!ready() && now() < limit)
      run_for(10 * sim::kMicrosecond);
    ASSERT_TRUE(ready()) << ready_path << " not 1 on every node by " << limit << " ps";
  }

  // A host process on node n, starting `delay` from now.
  void spawn(uint32_t n, std::string name, host::Process::Body body, sim::Time delay = 0) {
    node(n).spawn(std::move(name), std::move(body), now() + delay);
  }

  // Runs until done() or the limit; a CPU fault fails the test with the chip's report.
  // Then `settle` more, so transfers in flight land.
  void run(const std::function<bool()>& done, sim::Time limit = 200 * sim::kMillisecond,
           sim::Time settle = 100 * sim::kMicrosecond) {
    watch();
    while (!done() && now() < limit)
      run_for(20 * sim::kMicrosecond);
    EXPECT_TRUE(done()) << "not finished by " << limit << " ps";
    run_for(settle);
  }
  void run_for(sim::Time t) { cluster_->kernel().run_until(now() + t); }
  sim::Time now() { return cluster_->kernel().now(); }

  // Per-handler instruction counts (the profiler observes without changing anything).
  void profile() {
    for (uint32_t n = 0; n < size(); ++n) {
      vm::Chip& chip = node(n).chip();
      auto pr = std::make_unique<vm::Profiler>(chip.cpu(), [&chip] { return chip.local_time(); });
      for (const auto& name : image_.layout_table.handlers)
        pr->add_handler(name, *image_.handler_entry(name));
      pr->set_dma_busy([&chip] { return chip.dma_busy(); });
      chip.set_instrument(pr.get());
      profilers_.push_back(std::move(pr));
    }
  }
  vm::Profiler& profiler(uint32_t n) { return *profilers_.at(n); }
  void print_profile(uint32_t n) {
    for (const auto& s : profilers_.at(n)->summaries())
      if (s.instructions.count)
        std::printf("node%u %-16s calls %6llu  insns min %4llu median %4llu max %5llu  cycles "
                    "median %4llu\n",
                    n, s.name.c_str(), (unsigned long long)s.instructions.count,
                    (unsigned long long)s.instructions.min,
                    (unsigned long long)s.instructions.median,
                    (unsigned long long)s.instructions.max, (unsigned long long)s.cycles.median);
    if (std::getenv("LK_PROFILE"))
      std::printf("%s\n", sim::format_profile(image_, *profilers_.at(n), "node", 400).c_str());
  }

private:
  void watch() {
    if (watching_) return;
    watching_ = true;
    for (uint32_t n = 0; n < size(); ++n) {
      node(n).chip().on_stop([](vm::Chip& chip) {
        if (chip.cpu().fault()) ADD_FAILURE() << chip.name() << ":\n" << chip.cpu().fault_report();
      });
      if (std::getenv("LK_TRACE"))
        node(n).chip().on_event([n](const vm::ChipEventRecord& e) {
          std::printf("node%u %-14s t=%10.3f us insn=%llu bytes=%u\n", n,
                      vm::chip_event_name(e.kind), double(e.time) / 1e6,
                      (unsigned long long)e.instructions, e.bytes);
        });
    }
  }

  assembler::FirmwareImage image_;
  kit::ImageView view_;
  std::unique_ptr<sim::Cluster> cluster_;
  std::vector<std::unique_ptr<vm::Profiler>> profilers_;
  bool watching_ = false;
};

} // namespace lanaikit::test
