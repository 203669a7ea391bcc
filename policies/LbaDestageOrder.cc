#include "policies/LbaDestageOrder.h"

namespace tierlab {

void LbaDestageOrder::MarkDirty(std::uint64_t line, std::int64_t now_ns) {
  if (ages_.Add(line, now_ns)) sorted_.Insert(line);
}

void LbaDestageOrder::Remove(std::uint64_t line) {
  if (ages_.Remove(line)) sorted_.Erase(line);
}

void LbaDestageOrder::Next(std::size_t max_lines, std::vector<std::uint64_t>* out) {
  if (max_lines == 0 || sorted_.Empty()) return;
  std::uint64_t expect = sorted_.LowerBound(cursor_);
  if (expect == SortedLineSet::kNone) expect = sorted_.First();  // wrap: restart at the bottom
  std::size_t n = 0;
  while (n < max_lines && sorted_.Erase(expect)) {
    out->push_back(expect);
    ages_.Remove(expect);
    ++expect;
    ++n;
  }
  cursor_ = expect;
}

}  // namespace tierlab
