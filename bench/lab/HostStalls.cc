#include "bench/lab/HostStalls.h"

#include <algorithm>
#include <array>
#include <chrono>

namespace tierlab {

namespace {

// Upper bounds of the classes, in us; the last class has none.
constexpr std::array<Nanos, 11> kBoundsUs = {5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 0};

}  // namespace

HostStalls ClassifyStalls(const std::vector<Nanos>& gaps, Nanos window) {
  HostStalls h;
  h.window = window;
  std::array<Nanos, kBoundsUs.size()> sum{};
  std::array<std::uint64_t, kBoundsUs.size()> count{};
  Nanos lost = 0;
  for (const Nanos g : gaps) {
    if (g < kStallThreshold) continue;
    std::size_t c = 0;
    while (kBoundsUs[c] != 0 && g >= kBoundsUs[c] * kMicro) ++c;
    sum[c] += g;
    ++count[c];
    lost += g;
    ++h.count;
    h.longest = std::max(h.longest, g);
  }
  if (window <= 0) return h;
  h.lost_share = std::min(1.0, static_cast<double>(lost) / static_cast<double>(window));
  const Nanos running = window - std::min(lost, window);
  if (running <= 0) return h;
  for (std::size_t c = 0; c < sum.size(); ++c) {
    if (count[c] == 0) continue;
    h.stalls.push_back({sum[c] / static_cast<Nanos>(count[c]),
                        static_cast<double>(count[c]) * 1e9 / static_cast<double>(running)});
  }
  return h;
}

HostStalls MeasureHostStalls(Nanos window) {
  using Clock = std::chrono::steady_clock;
  std::vector<Nanos> gaps;
  const Clock::time_point start = Clock::now();
  const Clock::time_point stop = start + std::chrono::nanoseconds(window);
  Clock::time_point last = start;
  while (last < stop) {
    const Clock::time_point now = Clock::now();
    const Nanos gap = std::chrono::duration_cast<std::chrono::nanoseconds>(now - last).count();
    if (gap >= kStallThreshold) gaps.push_back(gap);
    last = now;
  }
  return ClassifyStalls(gaps,
                        std::chrono::duration_cast<std::chrono::nanoseconds>(last - start).count());
}

}  // namespace tierlab
