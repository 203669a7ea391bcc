#include "tiering/targets/StripeLocks.h"

namespace tierlab {

bool StripeLocks::Acquire(std::uint64_t stripe, Task granted) {
  auto it = held_.find(stripe);
  if (it != held_.end()) {
    it->second.push_back(std::move(granted));
    return false;
  }
  if (spare_.empty()) {
    held_.try_emplace(stripe);
  } else {
    Map::node_type node = std::move(spare_.back());
    spare_.pop_back();
    node.key() = stripe;
    held_.insert(std::move(node));
  }
  return true;
}

void StripeLocks::Release(std::uint64_t stripe) {
  auto it = held_.find(stripe);
  if (it == held_.end()) return;
  std::vector<Task>& waiters = it->second;
  if (waiters.empty()) {
    spare_.push_back(held_.extract(it));  // keeps the node and its vector's capacity
    return;
  }
  Task next = std::move(waiters.front());
  waiters.erase(waiters.begin());
  next();  // the lock stays held, now by `next`'s owner
}

}  // namespace tierlab
