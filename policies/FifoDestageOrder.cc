#include "policies/FifoDestageOrder.h"

namespace tierlab {

void FifoDestageOrder::Next(std::size_t max_lines, std::vector<std::uint64_t>* out) {
  // One run per call: the oldest line, then the next oldest while each is the
  // line after the one before (a stream written in order). The cache starts
  // one origin write per call, so its in-flight budget counts writes.
  std::uint64_t expect = 0;
  for (std::size_t i = 0; i < max_lines && !ages_.Empty(); ++i) {
    const std::uint64_t line = ages_.FrontLine();
    if (i > 0 && line != expect) break;
    out->push_back(line);
    ages_.PopFront();
    expect = line + 1;
  }
}

}  // namespace tierlab
