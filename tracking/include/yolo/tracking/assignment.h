// Linear assignment (rows to columns, each used at most once) for the trackers' association
// steps and the MOT metrics' matching. One exact solver, two ways of saying which pairs may match:
//   - solve_gated: Ultralytics' `lap.lapjv(cost, extend_cost=True, cost_limit=L)`. Every row and
//     column may stay unmatched at cost L/2, so a pair is only worth matching when its cost is
//     below L; the result minimises sum(cost - L) over the matched pairs.
//   - solve_min_cost: the most pairs among the allowed ones (finite cost), and among those the
//     lowest total cost (scipy's linear_sum_assignment with forbidden pairs, as py-motmetrics
//     and TrackEval use it).
// Both split the problem into the connected parts of the graph of allowed pairs first, so a
// frame with hundreds of objects, most far apart, costs a few small solves instead of one large
// one. Each part is solved exactly by shortest augmenting paths (the Hungarian method in the
// Jonker-Volgenant form, O(n^2 m) per part).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace yolo::tracking {

// A dense cost matrix, row-major: rows x cols values.
struct CostMatrix {
  int rows = 0;
  int cols = 0;
  std::vector<double> values;

  CostMatrix() = default;
  CostMatrix(int r, int c, double fill = 0.0)
      : rows(r), cols(c), values(static_cast<size_t>(r) * static_cast<size_t>(c), fill) {}
  double& at(int r, int c) { return values[static_cast<size_t>(r) * cols + c]; }
  double at(int r, int c) const { return values[static_cast<size_t>(r) * cols + c]; }
};

struct Assignment {
  std::vector<std::pair<int, int>> matches;  // (row, col), ordered by row
  std::vector<int> unmatched_rows;           // ascending
  std::vector<int> unmatched_cols;           // ascending
};

// Pairs with cost >= cost_limit (or not finite) are never matched.
Assignment solve_gated(const CostMatrix& cost, double cost_limit);

// Pairs whose cost is +inf or NaN are forbidden.
Assignment solve_min_cost(const CostMatrix& cost);

}  // namespace yolo::tracking
