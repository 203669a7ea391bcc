#pragma once
// The median of a set of figures: the middle one, or the mean of the two
// middle ones for an even count (the convention fio and the SNIA PTS
// reports use). Robust to the one slow run a shared machine gives, which
// is why calibration summarises repeats by it rather than by the mean.

#include <vector>

namespace tierlab {

// NaN for an empty set: no figure is better than a made-up one.
double Median(std::vector<double> v);

}  // namespace tierlab
