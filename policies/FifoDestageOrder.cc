#include "policies/FifoDestageOrder.h"

namespace tierlab {

void FifoDestageOrder::Next(std::size_t max_lines, std::vector<std::uint64_t>* out) {
  for (std::size_t i = 0; i < max_lines && !ages_.Empty(); ++i) {
    out->push_back(ages_.FrontLine());
    ages_.PopFront();
  }
}

}  // namespace tierlab
