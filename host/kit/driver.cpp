#include "host/kit/driver.h"

#include "vm/chip_regs.h"

namespace lanaikit::kit {

struct Driver::Shared {
  bool alive = true;
  uint32_t bits = 0;
  std::vector<std::pair<uint32_t, Service>> on_bits;
  std::vector<Service> every_turn;
  std::vector<uint64_t> turns;
};

namespace {

// GCC 12 destroys a lambda temporary written inside a co_await expression twice (a
// capture with a destructor, e.g. a shared_ptr, is released twice: host/model/process.h):
// every condition waited on here is a named std::function, built outside the co_await.
host::Task driver_loop(host::Process& p, sim::Node& node, std::shared_ptr<Driver::Shared> sh) {
  uint64_t seen = 0;
  const std::function<bool()> interrupted = [&node, &seen, sh] {
    return sh->alive && node.interrupts_delivered() != seen;
  };
  for (;;) {
    co_await p.wait(node.interrupt_watch(), interrupted);
    seen = node.interrupts_delivered();
    for (;;) {
      uint32_t isr = 0;
      co_await node.pio_read_reg(p, vm::regs::ISR, isr);
      const uint32_t bits = isr & sh->bits;
      if (bits) {
        ++sh->turns[node.index()];
        node.pio_write_reg(p, vm::regs::ISR, bits); // W1C
      }
      for (const auto& [mask, service] : sh->on_bits)
        if ((bits & mask) && service) co_await service(p, node.index());
      for (const Driver::Service& service : sh->every_turn)
        co_await service(p, node.index());
      if (!bits) break;
    }
  }
}

} // namespace

Driver::Driver(sim::Cluster& cluster, std::string process_name)
    : cluster_(cluster), name_(std::move(process_name)), shared_(std::make_shared<Shared>()) {
  shared_->turns.assign(cluster.size(), 0);
  started_.assign(cluster.size(), false);
}

Driver::~Driver() {
  shared_->alive = false;
}

void Driver::on(uint32_t isr_bits, Service service) {
  shared_->bits |= isr_bits;
  shared_->on_bits.emplace_back(isr_bits, std::move(service));
}

void Driver::every_turn(Service service) {
  shared_->every_turn.push_back(std::move(service));
}

void Driver::start(uint32_t i) {
  if (started_.at(i)) return;
  started_[i] = true;
  sim::Node& node = cluster_.node(i);
  node.chip().host_write_reg(vm::regs::EIMR, shared_->bits);
  std::shared_ptr<Shared> sh = shared_;
  node.spawn(name_, [&node, sh](host::Process& p) { return driver_loop(p, node, sh); });
}

uint32_t Driver::bits() const {
  return shared_->bits;
}
uint64_t Driver::turns(uint32_t node) const {
  return shared_->turns.at(node);
}

} // namespace lanaikit::kit
