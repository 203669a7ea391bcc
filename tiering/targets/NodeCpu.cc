#include "tiering/targets/NodeCpu.h"

#include <algorithm>
#include <cmath>

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

Nanos NodeCpu::Serve(std::size_t core, Nanos start, Nanos work) {
  if (stall_clocks_.empty()) return start + work;
  StallClock& s = stall_clocks_[core];
  Prune(s);
  while (s.end <= start) PassStall(s);  // over while the core was idle
  const Nanos ready = start;
  if (s.start <= start) {  // under way: the work starts when it ends
    start = s.end;
    PassStall(s);
  }
  Nanos end = start + work;
  while (s.start < end) {  // the work is interrupted
    end += s.end - s.start;
    PassStall(s);
  }
  stalled_ += end - ready - work;
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
  busy_ += work;
  return end;
}

}  // namespace tierlab
