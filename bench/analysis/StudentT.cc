#include "bench/analysis/StudentT.h"

#include <cmath>
#include <limits>

namespace tierlab {
namespace {

// The continued fraction of I_x(a, b) (A&S 26.5.8), converging fast for
// x < (a + 1) / (a + b + 2): 1 / (1 + d1 / (1 + d2 / (1 + ...))) with
//   d(2m + 1) = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))
//   d(2m)     = m (b - m) x / ((a + 2m - 1)(a + 2m)),
// evaluated front to back with the modified Lentz method.
double BetaContinuedFraction(double x, double a, double b) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-15;
  auto guard = [&](double v) { return std::fabs(v) < kTiny ? kTiny : v; };
  double c = 1.0;
  double d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0));  // d1 folded into the first term
  double f = d;
  for (int m = 1; m <= 1000; ++m) {
    const double md = m;
    const double even = md * (b - md) * x / ((a + 2 * md - 1) * (a + 2 * md));
    d = 1.0 / guard(1.0 + even * d);
    c = guard(1.0 + even / c);
    f *= d * c;
    const double odd = -(a + md) * (a + b + md) * x / ((a + 2 * md) * (a + 2 * md + 1));
    d = 1.0 / guard(1.0 + odd * d);
    c = guard(1.0 + odd / c);
    const double step = d * c;
    f *= step;
    if (std::fabs(step - 1.0) < kEps) break;
  }
  return f;
}

}  // namespace

double RegularizedIncompleteBeta(double x, double a, double b) {
  if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (x == 0 || x == 1) return x;
  // x^a (1 - x)^b / B(a, b), in logs to stay finite for large a, b.
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1) / (a + b + 2)) return front * BetaContinuedFraction(x, a, b) / a;
  return 1.0 - front * BetaContinuedFraction(1 - x, b, a) / b;
}

double StudentTCdf(double t, double df) {
  if (!(df > 0) || std::isnan(t)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  const double tail = 0.5 * RegularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1.0 - tail : tail;
}

double StudentTQuantile(double p, double df) {
  if (!(p > 0) || !(p < 1) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0.5) return 0;
  // Symmetric: solve for the upper tail, where the CDF is increasing in t.
  const double q = p > 0.5 ? p : 1 - p;
  double lo = 0, hi = 1;
  while (StudentTCdf(hi, df) < q && hi < 1e300) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (StudentTCdf(mid, df) < q ? lo : hi) = mid;
  }
  const double t = 0.5 * (lo + hi);
  return p > 0.5 ? t : -t;
}

}  // namespace tierlab
