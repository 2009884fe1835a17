#include "track_state.h"

#include <algorithm>

#include "yolo/core/box_math.h"

namespace yolo::tracking {

std::array<float, 4> track_xyxy(const TrackState& t, BoxEncoding encoding) {
  if (!t.has_state) {
    const auto& b = t.tlwh;
    return {b[0], b[1], b[2] + b[0], b[3] + b[1]};
  }
  // In float64 from the state, as Ultralytics' tlwh/xyxy properties, then stored as float32.
  const double cx = t.mean[0], cy = t.mean[1];
  const double w = encoding == BoxEncoding::kXYAH ? t.mean[2] * t.mean[3] : t.mean[2];
  const double h = t.mean[3];
  const double left = cx - w / 2, top = cy - h / 2;
  return {static_cast<float>(left), static_cast<float>(top), static_cast<float>(w + left),
          static_cast<float>(h + top)};
}

Measurement measure(const std::array<float, 4>& tlwh, BoxEncoding encoding) {
  const float cx = tlwh[0] + tlwh[2] / 2;
  const float cy = tlwh[1] + tlwh[3] / 2;
  const float third = encoding == BoxEncoding::kXYAH ? tlwh[2] / tlwh[3] : tlwh[2];
  return {cx, cy, third, tlwh[3]};
}

std::vector<float> iou_distance(const std::vector<std::array<float, 4>>& a,
                                const std::vector<std::array<float, 4>>& b) {
  std::vector<float> cost(a.size() * b.size());
  // Ultralytics' bbox_ioa(iou=True): the same float32 IoU with eps 1e-7 as the metrics' box_iou.
  for (size_t i = 0; i < a.size(); ++i) {
    const boxes::Xyxy box_a{a[i][0], a[i][1], a[i][2], a[i][3]};
    for (size_t j = 0; j < b.size(); ++j) {
      const boxes::Xyxy box_b{b[j][0], b[j][1], b[j][2], b[j][3]};
      cost[i * b.size() + j] = 1.0f - boxes::iou(box_a, box_b);
    }
  }
  return cost;
}

void fuse_score(std::vector<float>& cost, int rows, const std::vector<float>& scores) {
  const size_t cols = scores.size();
  for (int r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      float& v = cost[r * cols + c];
      const float similarity = 1.0f - v;
      v = 1.0f - similarity * scores[c];
    }
  }
}

CostMatrix to_cost_matrix(const std::vector<float>& cost, int rows, int cols) {
  CostMatrix m(rows, cols);
  std::copy(cost.begin(), cost.end(), m.values.begin());
  return m;
}

}  // namespace yolo::tracking
