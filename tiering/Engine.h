#pragma once
// The event loop every device and target runs on. Two implementations:
// SimEngine (virtual clock, discrete-event, deterministic) and RealEngine
// (monotonic clock, reaps libaio completions and file descriptors).
//
// Threading: an engine and everything submitted to it belong to one thread.
// Nothing else reads the wall clock; time comes from Now().

#include <cstdint>

#include "tiering/InlineFunction.h"
#include "tiering/IoRequest.h"

namespace tierlab {

// Big enough to capture an IoCallback plus a few words of context.
using Task = InlineFunction<void(), 96>;
using TimerId = std::uint64_t;

class Engine {
 public:
  Engine() = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  virtual ~Engine() = default;

  // Current time on this engine's clock.
  virtual Nanos Now() const = 0;

  // Runs `task` at absolute time `at` (or as soon as possible if `at` <= Now()).
  // Tasks due at the same time run in the order they were scheduled.
  virtual TimerId ScheduleAt(Nanos at, Task task) = 0;
  TimerId ScheduleAfter(Nanos delay, Task task) {
    return ScheduleAt(Now() + delay, std::move(task));
  }
  // Runs `task` at the current time after the running task returns.
  TimerId Post(Task task) { return ScheduleAt(Now(), std::move(task)); }
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
};

}  // namespace tierlab
