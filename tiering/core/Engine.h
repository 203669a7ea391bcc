#pragma once
// The event loop every device and target runs on. Two implementations:
// SimEngine (virtual clock, discrete-event, deterministic) and RealEngine
// (monotonic clock, reaps libaio completions and file descriptors).
//
// Threading: an engine and everything submitted to it belong to one thread.
// Nothing else reads the wall clock; time comes from Now().

#include <cstdint>
#include <vector>

#include "tiering/core/InlineFunction.h"
#include "tiering/core/IoRequest.h"

namespace tierlab {

// Big enough to capture an IoCallback plus a few words of context.
using Task = InlineFunction<void(), 96>;
using TimerId = std::uint64_t;

class Engine {
 public:
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  virtual ~Engine() = default;

  // Current time on this engine's clock. Not virtual: a simulated run asks
  // about ten times per I/O, so a simulated clock is read inline.
  Nanos Now() const { return sim_clock_ != nullptr ? *sim_clock_ : ClockNow(); }

  // Runs `task` at absolute time `at` (or as soon as possible if `at` <= Now()).
  // Tasks due at the same time run in the order they were scheduled.
  virtual TimerId ScheduleAt(Nanos at, Task task) = 0;
  TimerId ScheduleAfter(Nanos delay, Task task) {
    return ScheduleAt(Now() + delay, std::move(task));
  }
  // Runs `task` at the current time after the running task returns.
  TimerId Post(Task task) { return ScheduleAt(Now(), std::move(task)); }
  // Runs `task` as soon as the engine finishes what it is dispatching now (a
  // task; for the real engine, the ready fds of one wait or the completions
  // of one reap), before it runs any other task. Tasks deferred together run
  // in the order deferred, and a task they defer runs after them. Meant for
  // gathering a burst of work that one callback submits and handling it once
  // at the end (the cache target's batched read lookups): unlike Post(), it
  // costs no timer, and it never lets another event run in between. Deferred
  // outside any callback, the task runs when the engine next runs.
  void Defer(Task task) { deferred_.push_back(std::move(task)); }
  // Cancels a timer that has not run yet; returns false if it already ran or
  // was cancelled.
  virtual bool Cancel(TimerId id) = 0;

  // Runs until there is nothing left to do or Stop() is called.
  virtual void Run() = 0;
  // Runs until time `t` (inclusive) or until there is nothing left to do.
  virtual void RunUntil(Nanos t) = 0;
  // Makes Run()/RunUntil() return after the current task.
  virtual void Stop() = 0;

  // Simulated engines advance time only through events; real ones do not.
  virtual bool IsSimulated() const = 0;

 protected:
  // `sim_clock`: a simulated engine's clock variable, which Now() reads;
  // null for an engine whose clock is ClockNow().
  explicit Engine(const Nanos* sim_clock) : sim_clock_(sim_clock) {}
  // The time, for an engine without a simulated clock variable.
  virtual Nanos ClockNow() const = 0;

  // Engines call this after every task or batch of callbacks they dispatch.
  void RunDeferred() {
    if (!deferred_.empty()) RunDeferredTasks();
  }

 private:
  void RunDeferredTasks() {
    if (running_deferred_) return;  // a nested run loop leaves them to the outer one
    running_deferred_ = true;
    while (!deferred_.empty()) {
      batch_.swap(deferred_);
      for (Task& t : batch_) t();
      batch_.clear();
    }
    running_deferred_ = false;
  }

  const Nanos* sim_clock_;
  std::vector<Task> deferred_;
  std::vector<Task> batch_;  // the tasks running now (keeps its capacity)
  bool running_deferred_ = false;
};

}  // namespace tierlab
