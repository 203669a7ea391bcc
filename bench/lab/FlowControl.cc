#include "bench/lab/FlowControl.h"

#include <utility>

namespace tierlab {

void FlowControl::Join(std::uint32_t id, std::uint32_t weight) {
  flows_[id].total_weight += weight;
}

bool FlowControl::TryIssue(std::uint32_t id, std::uint32_t weight, std::uint64_t& job_count) {
  Flow& f = flows_[id];
  // In doubles, as fio compares them.
  const double count_ratio = static_cast<double>(job_count) / static_cast<double>(f.counter);
  const double weight_ratio = static_cast<double>(weight) / static_cast<double>(f.total_weight);
  if (count_ratio > weight_ratio) return false;
  ++f.counter;
  ++job_count;
  f.Moved();
  return true;
}

void FlowControl::Leave(std::uint32_t id, std::uint32_t weight, std::uint64_t job_count) {
  Flow& f = flows_[id];
  f.counter -= job_count;
  f.total_weight -= weight;
  f.Moved();
}

std::uint64_t FlowControl::Wait(std::uint32_t id, WakeUp w, bool held) {
  Flow& f = flows_[id];
  f.waiting.push_back({++next_ticket_, std::move(w), held});
  if (held) ++f.held;
  return next_ticket_;
}

void FlowControl::Unwait(std::uint32_t id, std::uint64_t ticket) {
  Flow& f = flows_[id];
  for (auto it = f.waiting.begin(); it != f.waiting.end(); ++it) {
    if (it->ticket != ticket) continue;
    if (it->held) --f.held;
    f.waiting.erase(it);
    return;
  }
}

std::vector<FlowControl::WakeUp> FlowControl::TakeWaiting(std::uint32_t id) {
  Flow& f = flows_[id];
  std::vector<WakeUp> out;
  out.reserve(f.waiting.size());
  for (Flow::Waiter& w : f.waiting) {
    if (w.held) --f.held;  // on its way: no longer stuck
    out.push_back(std::move(w.wake));
  }
  f.waiting.clear();
  return out;
}

std::size_t FlowControl::waiting(std::uint32_t id) const {
  const auto it = flows_.find(id);
  return it == flows_.end() ? 0 : it->second.waiting.size();
}

void FlowControl::Start(std::uint32_t id) {
  Flow& f = flows_[id];
  --f.scheduled;
  ++f.running;
  f.Moved();
}

std::uint64_t FlowControl::Sleep(std::uint32_t id) {
  Flow& f = flows_[id];
  ++f.sleepers_since;
  return f.version;
}

void FlowControl::Wake(std::uint32_t id, std::uint64_t version) {
  Flow& f = flows_[id];
  if (version == f.version) --f.sleepers_since;
}

bool FlowControl::Stuck(std::uint32_t id) const {
  const auto it = flows_.find(id);
  if (it == flows_.end()) return false;
  const Flow& f = it->second;
  return f.running > 0 && f.held + f.sleepers_since == f.running && f.scheduled == 0;
}

}  // namespace tierlab
