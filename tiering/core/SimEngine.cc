#include "tiering/core/SimEngine.h"

#include <limits>

namespace tierlab {

TimerId SimEngine::ScheduleAt(Nanos at, Task task) {
  return queue_.Push(at < now_ ? now_ : at, std::move(task));
}

void SimEngine::Run() {
  RunUntil(std::numeric_limits<Nanos>::max());
}

void SimEngine::RunUntil(Nanos t) {
  stopped_ = false;
  RunDeferred();  // deferred before the engine ran
  while (!stopped_ && !queue_.Empty()) {
    if (queue_.NextDue() > t) {
      now_ = t;
      return;
    }
    ++tasks_run_;
    queue_.RunNext(&now_);
    RunDeferred();
  }
  // Idle until the deadline: simulated time still passes (a ramp or a
  // runtime limit may end on a quiet device).
  if (!stopped_ && t != std::numeric_limits<Nanos>::max() && now_ < t) now_ = t;
}

}  // namespace tierlab
