#pragma once
// Discrete-event engine on a virtual clock. Time jumps to the next due task;
// nothing sleeps. Given the same submissions in the same order, every run
// produces the same sequence of events, so a seed fixes a result.

#include "tiering/core/Engine.h"
#include "tiering/core/TimerQueue.h"

namespace tierlab {

class SimEngine final : public Engine {
 public:
  SimEngine() : Engine(&now_) {}

  TimerId ScheduleAt(Nanos at, Task task) override;
  bool Cancel(TimerId id) override { return queue_.Cancel(id); }
  void Run() override;
  void RunUntil(Nanos t) override;
  void Stop() override { stopped_ = true; }
  bool IsSimulated() const override { return true; }

  // Number of tasks run so far (for benchmarks and tests).
  std::uint64_t tasks_run() const { return tasks_run_; }
  std::size_t pending() const { return queue_.Size(); }

 private:
  Nanos ClockNow() const override { return now_; }  // Now() reads now_ directly

  TimerQueue queue_;
  Nanos now_ = 0;
  std::uint64_t tasks_run_ = 0;
  bool stopped_ = false;
};

}  // namespace tierlab
