#pragma once
// Student's t distribution: its CDF and its inverse (the quantile), for
// confidence intervals on a mean estimated from few samples (repeats of a
// cell, batch means of one run).
//
// Computed, not tabled: the CDF from the regularized incomplete beta
// function, I_x(a, b), by its continued fraction (Abramowitz & Stegun
// 26.5.8, evaluated with the modified Lentz method), through
//   P(T <= t) = 1 - I_{df / (df + t^2)}(df / 2, 1 / 2) / 2   for t >= 0,
// and the quantile by bisection on the CDF, to about 1e-12 relative. Degrees
// of freedom need not be integers. Pure functions, no state.

namespace tierlab {

// The regularized incomplete beta function I_x(a, b), x in [0, 1], a, b > 0.
double RegularizedIncompleteBeta(double x, double a, double b);

// P(T <= t) for Student's t with `df` > 0 degrees of freedom.
double StudentTCdf(double t, double df);

// The t with P(T <= t) = p, for p in (0, 1) and df > 0: t(0.975, 4) =
// 2.776. Returns NaN for p or df outside their range.
double StudentTQuantile(double p, double df);

}  // namespace tierlab
