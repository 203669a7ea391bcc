#include "tiering/targets/NodeCpu.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tierlab {

namespace {

std::uint64_t Fnv1a(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h;
}

}  // namespace

NodeCpu::NodeCpu(std::string name, NodeCpuSpec spec)
    : name_(std::move(name)), spec_(std::move(spec)) {
  for (const CpuStall& s : spec_.stalls) {
    if (s.duration > 0) stall_rate_ += s.per_second / 1e9;
  }
  const std::vector<double>& l = spec_.speed.levels;
  const bool all_positive =
      std::all_of(l.begin(), l.end(), [](double v) { return v > 0 && std::isfinite(v); });
  if (!spec_.speed.empty() && all_positive) {  // the parsers refuse the rest
    const double mean = std::accumulate(l.begin(), l.end(), 0.0) / static_cast<double>(l.size());
    for (const double v : l) speeds_.push_back(v / mean);
    speed_seed_ = Fnv1a(name_ + "/speed");
  }
  for (std::uint32_t i = 0; i < spec_.cores; ++i) {
    free_at_.push({0, i});
    if (stall_rate_ > 0) {
      StallClock c;
      c.rng = SplitMix64(Fnv1a(name_) + i);
      NextStall(c, 0);
      stall_clocks_.push_back(c);
    }
  }
}

void NodeCpu::NextStall(StallClock& s, Nanos after) const {
  const double gap = -std::log1p(-s.rng.NextUnit()) / stall_rate_;
  double pick = s.rng.NextUnit() * stall_rate_ * 1e9;
  Nanos duration = 0;
  for (const CpuStall& c : spec_.stalls) {
    if (c.duration <= 0) continue;
    duration = c.duration;
    if (pick < c.per_second) break;
    pick -= c.per_second;
  }
  s.start = after + static_cast<Nanos>(std::ceil(gap));
  s.end = s.start + duration;
}

void NodeCpu::PassStall(StallClock& s) {
  if (s.end > horizon_) s.behind.emplace_back(s.start, s.end);
  NextStall(s, s.end);
}

void NodeCpu::Prune(StallClock& s) const {
  while (!s.behind.empty() && s.behind.front().second <= horizon_) s.behind.pop_front();
}

double NodeCpu::SpeedAt(std::size_t core, Nanos t) const {
  const auto window = static_cast<std::uint64_t>(t / spec_.speed.window);
  const std::uint64_t h = SplitMix64Hash(speed_seed_ + core * 0x9e3779b97f4a7c15ULL + window);
  return speeds_[h % speeds_.size()];
}

Nanos NodeCpu::Serve(std::size_t core, Nanos start, Nanos work) {
  StallClock* s = stall_clocks_.empty() ? nullptr : &stall_clocks_[core];
  if (s == nullptr && speeds_.empty()) {
    busy_ += work;
    return start + work;
  }
  const Nanos ready = start;
  Nanos away = 0;  // of the core's time in stalls, from `ready` to the end
  if (s != nullptr) {
    Prune(*s);
    while (s->end <= start) PassStall(*s);  // over while the core was idle
    if (s->start <= start) {                // under way: the work starts when it ends
      start = s->end;
      PassStall(*s);
    }
  }
  Nanos end = start + work;
  if (speeds_.empty()) {
    while (s->start < end) {  // the work is interrupted
      away += s->end - s->start;
      end += s->end - s->start;
      PassStall(*s);
    }
  } else {
    // Through the windows (and stalls) one piece at a time: each window
    // does its length times its speed of the work.
    const Nanos window = spec_.speed.window;
    auto left = static_cast<double>(work);
    Nanos t = start;
    for (;;) {
      Nanos until = (t / window + 1) * window;
      if (s != nullptr) until = std::min(until, s->start);
      const double speed = SpeedAt(core, t);
      const double can = static_cast<double>(until - t) * speed;
      if (left <= can) {
        end = std::min(until, t + static_cast<Nanos>(std::ceil(left / speed)));
        break;
      }
      left -= can;
      t = until;
      if (s != nullptr && t == s->start) {  // the work is interrupted
        away += s->end - s->start;
        t = s->end;
        PassStall(*s);
      }
    }
  }
  stalled_ += start - ready + away;
  busy_ += end - start - away;
  return end;
}

Nanos NodeCpu::Resume(Nanos now) {
  if (stall_clocks_.empty()) return now;
  horizon_ = std::max(horizon_, now);
  Nanos back = 0;
  for (StallClock& s : stall_clocks_) {
    Prune(s);
    while (s.end <= now) PassStall(s);
    Nanos until = s.start <= now ? s.end : now;
    for (const auto& [from, to] : s.behind) {
      if (from <= now) until = std::max(until, to);
    }
    if (until == now) return now;  // this core is there
    back = back == 0 ? until : std::min(back, until);
  }
  return back;
}

Nanos NodeCpu::Run(Nanos now, std::uint64_t bytes, bool write) {
  const Nanos per_io = write && spec_.per_write_io != 0 ? spec_.per_write_io : spec_.per_io;
  const Nanos per_kib = write && spec_.per_write_kib != 0 ? spec_.per_write_kib : spec_.per_kib;
  // Rounded up per KiB started: a 512-byte request costs as a KiB does.
  const Nanos work = per_io + per_kib * static_cast<Nanos>((bytes + 1023) / 1024);
  ++requests_;
  horizon_ = std::max(horizon_, now);
  if (free_at_.empty() || work == 0) return now;
  const auto [free_at, core] = free_at_.top();
  free_at_.pop();
  const Nanos end = Serve(core, std::max(now, free_at), work);
  free_at_.push({end, core});
  return end;
}

}  // namespace tierlab
