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
  return true;
}

void FlowControl::Leave(std::uint32_t id, std::uint32_t weight, std::uint64_t job_count) {
  Flow& f = flows_[id];
  f.counter -= job_count;
  f.total_weight -= weight;
}

void FlowControl::Wait(std::uint32_t id, WakeUp w) {
  flows_[id].waiting.push_back(std::move(w));
}

std::vector<FlowControl::WakeUp> FlowControl::TakeWaiting(std::uint32_t id) {
  return std::exchange(flows_[id].waiting, {});
}

std::size_t FlowControl::waiting(std::uint32_t id) const {
  const auto it = flows_.find(id);
  return it == flows_.end() ? 0 : it->second.waiting.size();
}

void FlowControl::Start(std::uint32_t id) {
  Flow& f = flows_[id];
  --f.scheduled;
  ++f.running;
}

bool FlowControl::Stuck(std::uint32_t id) const {
  const auto it = flows_.find(id);
  if (it == flows_.end()) return false;
  const Flow& f = it->second;
  return f.running > 0 && f.held == f.running && f.scheduled == 0;
}

}  // namespace tierlab
