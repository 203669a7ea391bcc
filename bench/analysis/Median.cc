#include "bench/analysis/Median.h"

#include <algorithm>
#include <limits>

namespace tierlab {

double Median(std::vector<double> v) {
  const std::size_t n = v.size();
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  // Partial selection is enough: the upper middle, then the largest below it.
  const auto upper = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), upper, v.end());
  if (n % 2 == 1) return *upper;
  return (*std::max_element(v.begin(), upper) + *upper) / 2;
}

}  // namespace tierlab
