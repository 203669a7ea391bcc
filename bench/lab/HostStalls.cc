#include "bench/lab/HostStalls.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <utility>

#include "tiering/core/SplitMix64.h"

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

HostSpeed SpreadOfSpeed(std::vector<double> per_window) {
  HostSpeed s;
  s.windows = per_window.size();
  if (per_window.empty()) return s;
  std::sort(per_window.begin(), per_window.end());
  const auto rank = [&](double p) {
    const auto k = static_cast<std::size_t>(std::ceil(p * static_cast<double>(s.windows)));
    return per_window[std::clamp<std::size_t>(k, 1, s.windows) - 1];
  };
  s.p10 = rank(0.1);
  s.p50 = rank(0.5);
  s.p90 = rank(0.9);
  return s;
}

HostStalls MeasureHostStalls(Nanos window, const StallProbe& probe) {
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
  };
  // The working set, written once so no page fault lands in the window.
  std::vector<std::uint64_t> memory(probe.working_set / sizeof(std::uint64_t), 1);
  const int touches = memory.empty() ? 0 : probe.touches;
  SplitMix64 rng(0x57a11);
  std::uint64_t sum = 0;
  const auto unit = [&] {
    for (int i = 0; i < touches; ++i) {
      std::uint64_t& word = memory[rng.Next() % memory.size()];
      sum += word;
      word = sum;
    }
  };
  // A unit's own time: the median of the first units.
  std::vector<Nanos> first(kStallUnitsForMedian);
  Clock::time_point last = Clock::now();
  for (Nanos& d : first) {
    unit();
    const Clock::time_point now = Clock::now();
    d = since(last, now);
    last = now;
  }
  std::nth_element(first.begin(), first.begin() + first.size() / 2, first.end());
  const Nanos own = first[first.size() / 2];

  std::vector<Nanos> gaps;
  std::vector<double> per_window;  // units a microsecond of running time
  const Clock::time_point start = Clock::now();
  const Clock::time_point stop = start + std::chrono::nanoseconds(window);
  last = start;
  Clock::time_point window_start = start;
  std::uint64_t window_units = 0;
  Nanos window_stalls = 0;
  while (last < stop) {
    unit();
    const Clock::time_point now = Clock::now();
    const Nanos gap = since(last, now) - own;
    ++window_units;
    if (gap >= kStallThreshold) {
      gaps.push_back(gap);
      window_stalls += gap;
    }
    last = now;
    if (const Nanos w = since(window_start, now); w >= kSpeedWindow) {
      if (w > window_stalls) {
        per_window.push_back(static_cast<double>(window_units) * 1e3 /
                             static_cast<double>(w - window_stalls));
      }
      window_start = now;
      window_units = 0;
      window_stalls = 0;
    }
  }
  // The work's result goes somewhere the compiler cannot see through.
  [[maybe_unused]] volatile std::uint64_t sink = sum;
  HostStalls h = ClassifyStalls(gaps, since(start, last));
  h.unit = own;
  h.speed = SpreadOfSpeed(std::move(per_window));
  return h;
}

}  // namespace tierlab
