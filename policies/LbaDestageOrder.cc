#include "policies/LbaDestageOrder.h"

namespace tierlab {

void LbaDestageOrder::MarkDirty(std::uint64_t line, std::int64_t now_ns) {
  if (ages_.Add(line, now_ns)) sorted_.insert(line);
}

void LbaDestageOrder::Remove(std::uint64_t line) {
  if (ages_.Remove(line)) sorted_.erase(line);
}

void LbaDestageOrder::Next(std::size_t max_lines, std::vector<std::uint64_t>* out) {
  if (max_lines == 0 || sorted_.empty()) return;
  auto it = sorted_.lower_bound(cursor_);
  if (it == sorted_.end()) it = sorted_.begin();  // wrap: the elevator restarts at the bottom
  std::uint64_t expect = *it;
  std::size_t n = 0;
  while (it != sorted_.end() && *it == expect && n < max_lines) {
    out->push_back(expect);
    ages_.Remove(expect);
    it = sorted_.erase(it);
    ++expect;
    ++n;
  }
  cursor_ = expect;  // may be 0 after wrapping past UINT64_MAX, which also restarts the sweep
}

}  // namespace tierlab
