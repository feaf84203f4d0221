// Host processes: C++20 coroutines with a local clock (temporal decoupling,
// ARCHITECTURE.md "Host side").
//
// A process runs ahead of the event queue: computing and posting writes only advance its
// local clock (advance(), post()). It suspends only when it must observe simulated state:
// sync() waits until the kernel reaches its local time; wait() additionally waits until a
// condition holds, re-checking it each time its WaitList is notified (a watch on host
// memory or on the interrupt line, never a simulated busy loop). After a wait the local
// clock is the time the condition became true (or the local time, if later).
//
// Lua processes (the scripting issue) build on the same primitives.
#pragma once

#include "event/kernel.h"
#include "event/time.h"

#include <coroutine>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lanaikit::host {

class Process;

// The return type of a process body: `Task body(Process& p) { ...; co_await p.sync(); }`.
class Task {
public:
  struct promise_type {
    Task get_return_object() { return Task(std::coroutine_handle<promise_type>::from_promise(*this)); }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    void return_void() {}
    // An exception escapes through the event that resumed the process, so a failing
    // process stops the run with its error instead of vanishing.
    void unhandled_exception() { throw; }
  };
  Task(Task&& o) noexcept : h_(o.h_) { o.h_ = {}; }
  Task& operator=(Task&& o) noexcept;
  Task(const Task&) = delete;
  ~Task();

private:
  friend class Process;
  explicit Task(std::coroutine_handle<promise_type> h) : h_(h) {}
  std::coroutine_handle<promise_type> h_;
};

// A coroutine a process body (or another Op) awaits: `Op<int> f(Process& p) { co_await
// p.sync(); co_return 1; }` ... `int v = co_await f(p);`. It starts when awaited and
// resumes its awaiter when it returns (symmetric transfer, no event in between), so a
// protocol library can offer blocking calls (send and wait, import) as ordinary
// functions. The process resumes whichever coroutine suspended last: Process::Awaiter
// records it. An exception inside an Op is rethrown at its co_await.
template <class T = void> class Op;

namespace detail {
struct OpPromiseBase {
  std::coroutine_handle<> continuation;
  std::exception_ptr error;
  std::suspend_always initial_suspend() noexcept { return {}; }
  struct Final {
    bool await_ready() const noexcept { return false; }
    template <class P> std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      return h.promise().continuation ? h.promise().continuation : std::noop_coroutine();
    }
    void await_resume() const noexcept {}
  };
  Final final_suspend() noexcept { return {}; }
  void unhandled_exception() { error = std::current_exception(); }
};

// The handle, lifetime and start of an Op; Op<T> adds how its result comes back.
template <class Promise> class OpBase {
public:
  OpBase(OpBase&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  OpBase(const OpBase&) = delete;
  ~OpBase() {
    if (h_) h_.destroy();
  }
  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> parent) noexcept {
    h_.promise().continuation = parent;
    return h_;
  }

protected:
  explicit OpBase(std::coroutine_handle<Promise> h) : h_(h) {}
  void rethrow() const {
    if (h_.promise().error) std::rethrow_exception(h_.promise().error);
  }
  std::coroutine_handle<Promise> h_;
};

template <class T> struct OpPromise : OpPromiseBase {
  std::optional<T> value;
  Op<T> get_return_object();
  template <class U> void return_value(U&& v) { value.emplace(std::forward<U>(v)); }
};
template <> struct OpPromise<void> : OpPromiseBase {
  Op<void> get_return_object();
  void return_void() {}
};

} // namespace detail

template <class T> class Op : public detail::OpBase<detail::OpPromise<T>> {
  using Base = detail::OpBase<detail::OpPromise<T>>;

public:
  using promise_type = detail::OpPromise<T>;
  T await_resume() {
    this->rethrow();
    return std::move(*this->h_.promise().value);
  }

private:
  friend promise_type;
  explicit Op(std::coroutine_handle<promise_type> h) : Base(h) {}
};

template <> class Op<void> : public detail::OpBase<detail::OpPromise<void>> {
  using Base = detail::OpBase<detail::OpPromise<void>>;

public:
  using promise_type = detail::OpPromise<void>;
  void await_resume() { rethrow(); }

private:
  friend promise_type;
  explicit Op(std::coroutine_handle<promise_type> h) : Base(h) {}
};

namespace detail {
template <class T> Op<T> OpPromise<T>::get_return_object() {
  return Op<T>(std::coroutine_handle<OpPromise<T>>::from_promise(*this));
}
inline Op<void> OpPromise<void>::get_return_object() {
  return Op<void>(std::coroutine_handle<OpPromise<void>>::from_promise(*this));
}
} // namespace detail

// Processes waiting for something (host memory written, an interrupt). notify() makes
// each re-check its condition, in the order they started waiting.
class WaitList {
public:
  void notify();
  size_t waiting() const { return waiters_.size(); }

private:
  friend class Process;
  struct Waiter {
    Process* process;
    std::function<bool()> ready;
  };
  std::vector<Waiter> waiters_;
};

class Process {
public:
  using Body = std::function<Task(Process&)>;

  Process(sim::Kernel& kernel, std::string name);
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  const std::string& name() const { return name_; }
  sim::Kernel& kernel() { return kernel_; }

  // Starts `body` at time `at` (>= now). The body object is kept alive with the process.
  void start(Body body, sim::Time at);
  bool done() const;
  bool started() const { return started_; }

  // The local clock.
  sim::Time local() const { return local_; }
  // Past sim::kMaxTime (or by a negative dt) it throws std::overflow_error naming the
  // process and both times: a saturated clock would make every later time silently wrong.
  void advance(sim::Time dt) {
    if (dt < 0 || dt > sim::kMaxTime - local_) [[unlikely]]
      advance_out_of_range(dt);
    local_ += dt;
  }

  // Runs `fn` as an event at the current local time; the process goes on without waiting.
  // (A sim::Callback, not a std::function: a PIO's lambda of a few pointers is built in
  // place instead of on the heap, twice per host register access.)
  void post(sim::Callback fn, uint32_t tag = 0);

  struct Awaiter {
    Process* p;
    sim::Callback begin; // arranges a later resume()
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) {
      p->current_ = h; // the body itself or the innermost Op awaiting
      begin();
    }
    void await_resume() const noexcept {}
  };
  // Suspends until the kernel reaches the local clock.
  Awaiter sync();
  // Suspends until ready() holds: checked at the local time, then each time `list` is
  // notified. Returns at once (after a sync) if it already holds.
  // GCC 12: a lambda temporary written inside the co_await expression
  // (`co_await p.wait(list, [sp] {...})`) is destroyed twice, so a capture with a
  // destructor (a shared_ptr, a string) is released twice. Pass a named std::function:
  // `const std::function<bool()> ready = [...] {...}; co_await p.wait(list, ready);`.
  Awaiter wait(WaitList& list, std::function<bool()> ready);
  // Suspends; `begin` must arrange for resume() to be called later (from an event).
  Awaiter suspend(sim::Callback begin) { return Awaiter{this, std::move(begin)}; }
  // Resumes a suspended process from the current event: its local clock becomes
  // max(local, now), and it continues in a new event at that time (never inside the
  // caller's callback, so models are not re-entered).
  void resume();

  // Time spent suspended (waiting for the kernel or a condition), for utilisation reports.
  sim::Time waited() const { return waited_; }

private:
  void run_body();
  [[noreturn]] void advance_out_of_range(sim::Time dt) const;

  sim::Kernel& kernel_;
  std::string name_;
  Body body_;
  std::unique_ptr<Task> task_;
  std::coroutine_handle<> current_; // what resume() continues: set by each Awaiter
  sim::Time local_ = 0;
  sim::Time suspended_at_ = 0;
  sim::Time waited_ = 0;
  bool started_ = false;
};

} // namespace lanaikit::host
