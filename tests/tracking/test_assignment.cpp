// The assignment solver against brute force: every way of matching rows to columns (or leaving
// them unmatched) on small random matrices, so the solver's optimum is checked, not a sample.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "yolo/tracking/assignment.h"

using yolo::tracking::Assignment;
using yolo::tracking::CostMatrix;
using yolo::tracking::solve_gated;
using yolo::tracking::solve_min_cost;

namespace {

// Every partial matching of `m`: calls visit(pairs) for each.
void each_matching(const CostMatrix& m, const std::function<void(const Assignment&)>& visit) {
  std::vector<char> col_used(m.cols, 0);
  Assignment current;
  std::function<void(int)> recurse = [&](int row) {
    if (row == m.rows) {
      visit(current);
      return;
    }
    recurse(row + 1);  // row unmatched
    for (int c = 0; c < m.cols; ++c) {
      if (col_used[c]) continue;
      col_used[c] = 1;
      current.matches.emplace_back(row, c);
      recurse(row + 1);
      current.matches.pop_back();
      col_used[c] = 0;
    }
  };
  recurse(0);
}

double gated_objective(const CostMatrix& m, const Assignment& a, double limit) {
  double total = 0;
  for (const auto& [r, c] : a.matches) total += m.at(r, c) - limit;
  return total;
}

CostMatrix random_matrix(std::mt19937& rng, int rows, int cols, double forbidden_share) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  CostMatrix m(rows, cols);
  for (double& v : m.values) {
    v = u(rng) < forbidden_share ? std::numeric_limits<double>::infinity() : u(rng);
  }
  return m;
}

void expect_consistent(const CostMatrix& m, const Assignment& a) {
  std::vector<char> row_seen(m.rows, 0), col_seen(m.cols, 0);
  for (const auto& [r, c] : a.matches) {
    ASSERT_FALSE(row_seen[r]) << "row matched twice";
    ASSERT_FALSE(col_seen[c]) << "column matched twice";
    row_seen[r] = col_seen[c] = 1;
  }
  for (int r : a.unmatched_rows) EXPECT_FALSE(row_seen[r]);
  for (int c : a.unmatched_cols) EXPECT_FALSE(col_seen[c]);
  EXPECT_EQ(a.matches.size() + a.unmatched_rows.size(), static_cast<size_t>(m.rows));
  EXPECT_EQ(a.matches.size() + a.unmatched_cols.size(), static_cast<size_t>(m.cols));
}

}  // namespace

TEST(Assignment, GatedMatchesBruteForceOnRandomMatrices) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    const int rows = 1 + trial % 5, cols = 1 + (trial / 5) % 5;
    const double limit = 0.3 + 0.5 * (trial % 7) / 6.0;
    const CostMatrix m = random_matrix(rng, rows, cols, 0.1);
    const Assignment a = solve_gated(m, limit);
    expect_consistent(m, a);
    for (const auto& [r, c] : a.matches) EXPECT_LT(m.at(r, c), limit);
    double best = 0;
    each_matching(m, [&](const Assignment& candidate) {
      for (const auto& [r, c] : candidate.matches) {
        if (!(m.at(r, c) < limit)) return;
      }
      best = std::min(best, gated_objective(m, candidate, limit));
    });
    EXPECT_NEAR(gated_objective(m, a, limit), best, 1e-12) << "trial " << trial;
  }
}

TEST(Assignment, MinCostTakesTheMostPairsThenTheCheapest) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 400; ++trial) {
    const int rows = 1 + trial % 5, cols = 1 + (trial / 5) % 5;
    const CostMatrix m = random_matrix(rng, rows, cols, 0.4);
    const Assignment a = solve_min_cost(m);
    expect_consistent(m, a);
    size_t most = 0;
    double cheapest = std::numeric_limits<double>::infinity();
    each_matching(m, [&](const Assignment& candidate) {
      double total = 0;
      for (const auto& [r, c] : candidate.matches) {
        if (!std::isfinite(m.at(r, c))) return;
        total += m.at(r, c);
      }
      if (candidate.matches.size() > most) {
        most = candidate.matches.size();
        cheapest = total;
      } else if (candidate.matches.size() == most) {
        cheapest = std::min(cheapest, total);
      }
    });
    double total = 0;
    for (const auto& [r, c] : a.matches) total += m.at(r, c);
    EXPECT_EQ(a.matches.size(), most) << "trial " << trial;
    if (most > 0) {
      EXPECT_NEAR(total, cheapest, 1e-12) << "trial " << trial;
    }
  }
}

TEST(Assignment, PrefersTwoGoodPairsOverOneBetterPair) {
  // Row 0 likes column 0 best, but giving column 0 to row 1 lets both rows match.
  CostMatrix m(2, 2, 1.0);
  m.at(0, 0) = 0.1;
  m.at(0, 1) = 0.3;
  m.at(1, 0) = 0.2;
  const Assignment a = solve_gated(m, 0.8);
  ASSERT_EQ(a.matches.size(), 2u);
  EXPECT_EQ(a.matches[0], std::make_pair(0, 1));
  EXPECT_EQ(a.matches[1], std::make_pair(1, 0));
}

TEST(Assignment, EmptyAndDegenerateShapes) {
  const Assignment none = solve_gated(CostMatrix(0, 3), 0.8);
  EXPECT_TRUE(none.matches.empty());
  EXPECT_EQ(none.unmatched_cols, (std::vector<int>{0, 1, 2}));
  const Assignment rows_only = solve_min_cost(CostMatrix(2, 0));
  EXPECT_EQ(rows_only.unmatched_rows, (std::vector<int>{0, 1}));
  CostMatrix nan(1, 1, std::nan(""));
  EXPECT_TRUE(solve_gated(nan, 0.8).matches.empty());
  EXPECT_TRUE(solve_min_cost(nan).matches.empty());
}

TEST(Assignment, ManyFarApartObjectsSplitIntoSmallParts) {
  // 2,000 tracks and detections, each overlapping only its own partner: the solver must return
  // the diagonal (and does so quickly, because each pair is its own part).
  const int n = 2000;
  CostMatrix m(n, n, 1.0);
  for (int i = 0; i < n; ++i) m.at(i, (i * 7) % n) = 0.05;
  const Assignment a = solve_gated(m, 0.8);
  ASSERT_EQ(a.matches.size(), static_cast<size_t>(n));
  for (const auto& [r, c] : a.matches) EXPECT_EQ(c, (r * 7) % n);
}
