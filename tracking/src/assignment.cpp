#include "yolo/tracking/assignment.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace yolo::tracking {
namespace {

// Union-find over rows (0..R-1) and columns (R..R+C-1), joined by every allowed pair.
class Components {
 public:
  explicit Components(int n) : parent_(static_cast<size_t>(n)) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  int find(int x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void join(int a, int b) { parent_[find(a)] = find(b); }

 private:
  std::vector<int> parent_;
};

// Minimum-cost assignment of every row of an n x m matrix (n <= m), row-major `a`; returns the
// column of each row. Shortest augmenting paths with potentials (Jonker-Volgenant / Hungarian).
std::vector<int> hungarian(const std::vector<double>& a, int n, int m) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> u(n + 1, 0.0), v(m + 1, 0.0), minv(m + 1);
  std::vector<int> p(m + 1, 0), way(m + 1, 0);
  std::vector<char> used(m + 1);
  for (int i = 1; i <= n; ++i) {
    p[0] = i;
    int j0 = 0;
    std::fill(minv.begin(), minv.end(), inf);
    std::fill(used.begin(), used.end(), 0);
    do {
      used[j0] = 1;
      const int i0 = p[j0];
      double delta = inf;
      int j1 = 0;
      for (int j = 1; j <= m; ++j) {
        if (used[j]) continue;
        const double cur = a[static_cast<size_t>(i0 - 1) * m + (j - 1)] - u[i0] - v[j];
        if (cur < minv[j]) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j] < delta) {
          delta = minv[j];
          j1 = j;
        }
      }
      for (int j = 0; j <= m; ++j) {
        if (used[j]) {
          u[p[j]] += delta;
          v[j] -= delta;
        } else {
          minv[j] -= delta;
        }
      }
      j0 = j1;
    } while (p[j0] != 0);
    do {
      const int j1 = way[j0];
      p[j0] = p[j1];
      j0 = j1;
    } while (j0 != 0);
  }
  std::vector<int> row_to_col(n, -1);
  for (int j = 1; j <= m; ++j) {
    if (p[j] != 0) row_to_col[p[j] - 1] = j - 1;
  }
  return row_to_col;
}

// Solves each connected part of the allowed pairs. `weight(c)` turns an allowed cost into what
// the part's dense problem minimises; `blocked` is the value of a pair that is not allowed (it
// is matched only when nothing better exists, and then dropped).
template <typename Allowed, typename Weight>
Assignment solve_by_parts(const CostMatrix& cost, Allowed allowed, Weight weight, double blocked) {
  const int R = cost.rows, C = cost.cols;
  Components parts(R + C);
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) {
      if (allowed(cost.at(r, c))) parts.join(r, R + c);
    }
  }
  std::vector<std::vector<int>> part_rows(static_cast<size_t>(R + C)),
      part_cols(static_cast<size_t>(R + C));
  for (int r = 0; r < R; ++r) part_rows[parts.find(r)].push_back(r);
  for (int c = 0; c < C; ++c) part_cols[parts.find(R + c)].push_back(c);

  std::vector<int> row_match(R, -1), col_match(C, -1);
  std::vector<double> dense;
  for (int root = 0; root < R + C; ++root) {
    const std::vector<int>& rows = part_rows[root];
    const std::vector<int>& cols = part_cols[root];
    if (rows.empty() || cols.empty()) continue;
    // Transpose when there are more rows than columns: the solver assigns every row.
    const bool transpose = rows.size() > cols.size();
    const std::vector<int>& a_idx = transpose ? cols : rows;
    const std::vector<int>& b_idx = transpose ? rows : cols;
    const int n = static_cast<int>(a_idx.size()), m = static_cast<int>(b_idx.size());
    dense.assign(static_cast<size_t>(n) * m, blocked);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < m; ++j) {
        const int r = transpose ? b_idx[j] : a_idx[i];
        const int c = transpose ? a_idx[i] : b_idx[j];
        const double v = cost.at(r, c);
        if (allowed(v)) dense[static_cast<size_t>(i) * m + j] = weight(v);
      }
    }
    const std::vector<int> assigned = hungarian(dense, n, m);
    for (int i = 0; i < n; ++i) {
      const int j = assigned[i];
      if (j < 0) continue;
      const int r = transpose ? b_idx[j] : a_idx[i];
      const int c = transpose ? a_idx[i] : b_idx[j];
      if (!allowed(cost.at(r, c))) continue;
      row_match[r] = c;
      col_match[c] = r;
    }
  }

  Assignment out;
  for (int r = 0; r < R; ++r) {
    if (row_match[r] >= 0) {
      out.matches.emplace_back(r, row_match[r]);
    } else {
      out.unmatched_rows.push_back(r);
    }
  }
  for (int c = 0; c < C; ++c) {
    if (col_match[c] < 0) out.unmatched_cols.push_back(c);
  }
  return out;
}

}  // namespace

Assignment solve_gated(const CostMatrix& cost, double cost_limit) {
  // Matching (r, c) changes the total by cost - limit against leaving both unmatched (limit/2
  // each), so only pairs below the limit are allowed and each weighs cost - limit (< 0); a
  // blocked pair weighs 0, the same as staying unmatched.
  return solve_by_parts(
      cost, [cost_limit](double v) { return std::isfinite(v) && v < cost_limit; },
      [cost_limit](double v) { return v - cost_limit; }, 0.0);
}

Assignment solve_min_cost(const CostMatrix& cost) {
  // A blocked pair costs more than any assignment of allowed pairs, so the solver takes as many
  // allowed pairs as exist before it minimises their cost.
  double largest = 0.0;
  for (double v : cost.values) {
    if (std::isfinite(v)) largest = std::max(largest, std::abs(v));
  }
  const double blocked = (2.0 * largest + 1.0) * (std::min(cost.rows, cost.cols) + 1.0);
  return solve_by_parts(
      cost, [](double v) { return std::isfinite(v); }, [](double v) { return v; }, blocked);
}

}  // namespace yolo::tracking
