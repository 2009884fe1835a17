#include "numpy_compat.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace yolo::metrics::numpy {

std::vector<double> linspace(double start, double stop, int num) {
  std::vector<double> out(static_cast<std::size_t>(std::max(num, 0)));
  if (num == 1) out[0] = start;
  if (num < 2) return out;
  // numpy/core/function_base.py: y = arange(num) * step + start, then y[-1] = stop.
  const double step = (stop - start) / (num - 1);
  for (int i = 0; i < num; ++i) out[i] = static_cast<double>(i) * step + start;
  out.back() = stop;
  return out;
}

double interp(double x, const std::vector<double>& xp, const std::vector<double>& fp, double left,
              double right) {
  if (xp.empty() || xp.size() != fp.size()) {
    throw std::invalid_argument("interp: xp and fp must be non-empty and of equal length");
  }
  // numpy/core/src/multiarray/compiled_base.c: arr_interp with binary_search_with_guess, which
  // returns the last j with xp[j] <= x.
  if (std::isnan(x)) return x;
  const std::size_t n = xp.size();
  if (x > xp[n - 1]) return right;
  if (x < xp[0]) return left;
  const std::size_t j =
      static_cast<std::size_t>(std::upper_bound(xp.begin(), xp.end(), x) - xp.begin()) - 1;
  if (j == n - 1 || xp[j] == x) return fp[j];
  const double slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
  double y = slope * (x - xp[j]) + fp[j];
  if (std::isnan(y)) {  // NumPy retries from the right end, then takes a flat segment's value
    y = slope * (x - xp[j + 1]) + fp[j + 1];
    if (std::isnan(y) && fp[j] == fp[j + 1]) y = fp[j];
  }
  return y;
}

std::vector<double> interp(const std::vector<double>& x, const std::vector<double>& xp,
                           const std::vector<double>& fp, double left, double right) {
  std::vector<double> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = interp(x[i], xp, fp, left, right);
  return out;
}

std::vector<double> interp(const std::vector<double>& x, const std::vector<double>& xp,
                           const std::vector<double>& fp) {
  if (fp.empty()) throw std::invalid_argument("interp: fp must be non-empty");
  return interp(x, xp, fp, fp.front(), fp.back());
}

namespace {

// numpy/core/src/umath/loops_utils.h.src: pairwise_sum_DOUBLE.
double pairwise_sum(const double* a, std::size_t n, std::size_t stride) {
  constexpr std::size_t kBlock = 128;  // PW_BLOCKSIZE
  if (n < 8) {
    double res = 0.;
    for (std::size_t i = 0; i < n; ++i) res += a[i * stride];
    return res;
  }
  if (n <= kBlock) {
    double r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = a[j * stride];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (std::size_t j = 0; j < 8; ++j) r[j] += a[(i + j) * stride];
    }
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i * stride];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_sum(a, n2, stride) + pairwise_sum(a + n2 * stride, n - n2, stride);
}

}  // namespace

double sum(const double* first, std::size_t n, std::size_t stride) {
  return 0.0 + pairwise_sum(first, n, stride);
}

double mean(const double* first, std::size_t n, std::size_t stride) {
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  return sum(first, n, stride) / static_cast<double>(n);
}

double mean(const std::vector<double>& v) {
  return mean(v.data(), v.size());
}

double trapezoid(const std::vector<double>& y, const std::vector<double>& x) {
  if (y.size() != x.size()) throw std::invalid_argument("trapezoid: x and y differ in length");
  if (y.size() < 2) return 0.0;
  std::vector<double> terms(y.size() - 1);
  for (std::size_t i = 0; i + 1 < y.size(); ++i) {
    terms[i] = (x[i + 1] - x[i]) * (y[i + 1] + y[i]) / 2.0;
  }
  return sum(terms.data(), terms.size());
}

}  // namespace yolo::metrics::numpy
