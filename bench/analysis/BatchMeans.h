#pragma once
// Non-overlapping batch means: the variance of a mean estimated from one
// run, whose successive samples are correlated (a queue that is long now is
// long a moment later), so that s / sqrt(n) over the raw samples would be
// far too narrow. The measured window is cut into k batches of equal
// duration; when the batches are long against the correlation time, their
// means are nearly independent and normal, and Student's t on the k batch
// means gives the interval (Law & Kelton, "Simulation Modeling and
// Analysis", 5th ed., section 9.5.3; Schmeiser, "Batch size effects in the
// analysis of simulation output", Operations Research 30(3), 1982).
//
// The choice: k = 20 batches. Schmeiser showed 10 to 30 batches lose
// little against the best k when the batches are long enough: fewer widen
// the t quantile (t(0.975, 9) = 2.26 against t(0.975, 19) = 2.09), more
// shorten the batches and leave them correlated, which makes the interval
// too narrow. As a check on the batch length, the lag-1 autocorrelation of
// the 20 batch means is estimated; above 0.2 the batches are doubled in
// length (10 batches), as Law and Carson's sequential procedure does. A
// window of fewer than 20 bins gets one batch per bin (fewer than two: no
// interval). Bins after the last whole batch are left out of the variance
// (not of the figure itself).

#include <cstddef>
#include <span>
#include <vector>

namespace tierlab {

inline constexpr std::size_t kBatchCount = 20;
inline constexpr std::size_t kMinBatchCount = 10;
inline constexpr double kMaxBatchLag1 = 0.2;

struct BatchPlan {
  std::size_t batches = 0;         // < 2: no interval
  std::size_t bins_per_batch = 0;  // consecutive bins summed into one batch
  double lag1 = 0;                 // of the chosen batches' sums of the reference
};

// The batches for `reference`, per-bin values of equal-width bins covering
// the window from its start (completions per bin).
BatchPlan PlanBatches(std::span<const double> reference);

// Each batch's sum of `bins` (the same bins the plan was made on; any
// series of them: ops, bytes, latency sums).
std::vector<double> BatchSums(std::span<const double> bins, const BatchPlan& plan);

// The lag-1 autocorrelation estimate sum (x_i - m)(x_i+1 - m) / sum (x_i -
// m)^2; 0 for fewer than 3 values or no variance.
double Lag1Autocorrelation(std::span<const double> x);

}  // namespace tierlab
