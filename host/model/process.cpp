#include "host/model/process.h"

#include <stdexcept>

namespace lanaikit::host {

namespace {
constexpr uint32_t kTagResume = 0x48500001;
}

Task& Task::operator=(Task&& o) noexcept {
  if (this != &o) {
    if (h_) h_.destroy();
    h_ = o.h_;
    o.h_ = {};
  }
  return *this;
}

Task::~Task() {
  if (h_) h_.destroy();
}

void WaitList::notify() {
  // A waiter whose condition holds leaves the list and resumes (in a new event); others
  // stay. Taking the list first lets a resumed process wait again on the same list.
  std::vector<Waiter> still;
  std::vector<Waiter> now = std::move(waiters_);
  waiters_.clear();
  for (auto& w : now) {
    if (w.ready()) w.process->resume();
    else still.push_back(std::move(w));
  }
  still.insert(still.end(), std::make_move_iterator(waiters_.begin()),
               std::make_move_iterator(waiters_.end()));
  waiters_ = std::move(still);
}

Process::Process(sim::Kernel& kernel, std::string name) : kernel_(kernel), name_(std::move(name)) {}

Process::~Process() = default;

void Process::start(Body body, sim::Time at) {
  if (started_) throw std::logic_error("process '" + name_ + "' started twice");
  started_ = true;
  body_ = std::move(body);
  local_ = at;
  kernel_.schedule_at(at, [this] { run_body(); }, kTagResume);
}

void Process::run_body() {
  task_ = std::make_unique<Task>(body_(*this));
  current_ = task_->h_;
  task_->h_.resume();
}

void Process::advance_out_of_range(sim::Time dt) const {
  if (dt < 0)
    throw std::overflow_error("process '" + name_ + "': advance by a negative time (" + std::to_string(dt) +
                              " ps) at local time " + std::to_string(local_) + " ps");
  throw std::overflow_error("process '" + name_ + "': advancing " + std::to_string(dt) + " ps from local time " +
                            std::to_string(local_) + " ps passes the clock's end (2^62 ps, about 53 days)");
}

bool Process::done() const { return task_ && task_->h_ && task_->h_.done(); }

void Process::post(sim::Callback fn, uint32_t tag) {
  kernel_.schedule_at(std::max(local_, kernel_.now()), std::move(fn), tag);
}

void Process::resume() {
  const sim::Time now = kernel_.now();
  if (now > local_) {
    waited_ += now - std::max(local_, suspended_at_);
    local_ = now;
  }
  kernel_.schedule_at(local_, [this] { current_.resume(); }, kTagResume);
}

Process::Awaiter Process::sync() {
  return Awaiter{this, [this] {
                   suspended_at_ = local_;
                   // The kernel may already be past a process that was resumed late.
                   kernel_.schedule_at(std::max(local_, kernel_.now()), [this] { current_.resume(); },
                                       kTagResume);
                 }};
}

Process::Awaiter Process::wait(WaitList& list, std::function<bool()> ready) {
  return Awaiter{this, [this, &list, ready = std::move(ready)]() mutable {
                   suspended_at_ = local_;
                   kernel_.schedule_at(
                       std::max(local_, kernel_.now()),
                       [this, &list, ready = std::move(ready)]() mutable {
                         local_ = std::max(local_, kernel_.now());
                         if (ready()) current_.resume();
                         else list.waiters_.push_back(WaitList::Waiter{this, std::move(ready)});
                       },
                       kTagResume);
                 }};
}

} // namespace lanaikit::host
