#include "bench/lab/LatencyTarget.h"

#include <algorithm>

namespace tierlab {

void LatencyTarget::Start(Nanos now, std::uint64_t ios) {
  if (final_run_) return;  // the settled depth is kept to the end
  depth_ = 1;
  low_ = 1;
  high_ = spec_.iodepth;
  NewWindow(now, ios);
}

LatencyTarget::Step LatencyTarget::OnLatency(Nanos latency) {
  if (latency <= spec_.target) return Step::kNone;
  if (spec_.percentile < 100) {
    ++late_;  // judged at the window's end
    return Step::kNone;
  }
  if (depth_ == 1) return Step::kTimedOut;
  return Fail();
}

LatencyTarget::Step LatencyTarget::Check(Nanos now, std::uint64_t ios) {
  if (now - window_start_ < spec_.window) return Step::kNone;
  // A window without completions fails (fio divides by their count).
  const std::uint64_t n = ios - window_ios_;
  const bool met =
      n > 0 && 100.0 * static_cast<double>(n - std::min(late_, n)) / static_cast<double>(n) >=
                   spec_.percentile;
  if (met) return Succeed(now, ios);
  // At depth 1 there is nowhere to go: the window runs on, unchanged.
  if (depth_ == 1) return Step::kNone;
  return Fail();
}

LatencyTarget::Step LatencyTarget::Fail() {
  high_ = depth_;
  if (depth_ == low_) --low_;
  depth_ = (depth_ + low_) / 2;
  stable_ = 0;
  return Step::kDrain;  // the window starts again once drained
}

LatencyTarget::Step LatencyTarget::Succeed(Nanos now, std::uint64_t ios) {
  const std::uint32_t before = depth_;
  low_ = depth_;
  if (depth_ + 1 == high_ && ++stable_ >= 3) {
    ++high_;
    stable_ = 0;
  }
  // Doubling until a failure has set a high bound, then halving the gap.
  depth_ = high_ != spec_.iodepth ? (depth_ + high_) / 2 : depth_ * 2;
  depth_ = std::min(depth_, spec_.iodepth);
  Step step = depth_ > before ? Step::kDeeper : Step::kNone;
  if (!spec_.run && depth_ == before) {
    step = final_run_ ? Step::kDone : Step::kFinalRun;
    final_run_ = true;
  }
  if (step != Step::kFinalRun) NewWindow(now, ios);  // the final run's starts once drained
  return step;
}

void LatencyTarget::NewWindow(Nanos now, std::uint64_t ios) {
  window_start_ = now;
  window_ios_ = ios;
  late_ = 0;
}

}  // namespace tierlab
