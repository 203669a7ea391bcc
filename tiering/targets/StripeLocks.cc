#include "tiering/targets/StripeLocks.h"

namespace tierlab {

bool StripeLocks::Acquire(std::uint64_t stripe, Task granted) {
  auto [it, inserted] = held_.try_emplace(stripe);
  if (inserted) return true;
  it->second.push_back(std::move(granted));
  return false;
}

void StripeLocks::Release(std::uint64_t stripe) {
  auto it = held_.find(stripe);
  if (it == held_.end()) return;
  if (it->second.empty()) {
    held_.erase(it);
    return;
  }
  Task next = std::move(it->second.front());
  it->second.pop_front();
  next();  // the lock stays held, now by `next`'s owner
}

}  // namespace tierlab
