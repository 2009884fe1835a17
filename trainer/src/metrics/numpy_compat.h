// The few NumPy routines Ultralytics' metrics are built from (utils/metrics.py), reproduced to the
// last bit where NumPy's result is itself deterministic: same formulas, same order of floating
// point operations. Private to the metrics unit.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace yolo::metrics::numpy {

// np.linspace(start, stop, num): i * ((stop - start) / (num - 1)) + start, the last value set to
// stop exactly.
std::vector<double> linspace(double start, double stop, int num);

// np.interp(x, xp, fp, left, right) for one x; xp must be non-decreasing (duplicates allowed,
// where NumPy takes the last of the equal points). Throws std::invalid_argument for empty or
// mismatched xp/fp.
double interp(double x, const std::vector<double>& xp, const std::vector<double>& fp, double left,
              double right);

// np.interp over many x with NumPy's defaults for left/right (fp[0], fp[-1]) unless given.
std::vector<double> interp(const std::vector<double>& x, const std::vector<double>& xp,
                           const std::vector<double>& fp);
std::vector<double> interp(const std::vector<double>& x, const std::vector<double>& xp,
                           const std::vector<double>& fp, double left, double right);

// np.add.reduce over n doubles spaced `stride` apart: NumPy's pairwise summation (eight partial
// sums for blocks up to 128, halving above), started from the identity 0.0.
double sum(const double* first, std::size_t n, std::size_t stride = 1);

// np.mean of a 1-D array: sum(...) / n. NaN for n == 0, as NumPy (which also warns).
double mean(const double* first, std::size_t n, std::size_t stride = 1);
double mean(const std::vector<double>& v);

// np.trapz / np.trapezoid(y, x): sum of (x[i+1] - x[i]) * (y[i+1] + y[i]) / 2.0.
double trapezoid(const std::vector<double>& y, const std::vector<double>& x);

// np.argmax: the first maximum; a NaN counts as the maximum (the first NaN wins). 0 when empty.
template <typename T>
std::size_t argmax(const std::vector<T>& v) {
  std::size_t best = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (std::isnan(v[i])) return i;
    if (v[i] > v[best]) best = i;
  }
  return best;
}

}  // namespace yolo::metrics::numpy
