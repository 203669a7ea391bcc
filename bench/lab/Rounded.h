#pragma once
// A figure rounded to a number of decimal places, for the JSON files that
// calibrate and validate write: a measured figure carries the digits it
// has, not a double's seventeen, so the files read and diff well.

#include <cmath>

namespace tierlab {

inline double Rounded(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

}  // namespace tierlab
