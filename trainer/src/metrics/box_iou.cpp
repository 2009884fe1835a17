// IoU of xyxy boxes and the validation IoU thresholds, in float32 as Ultralytics computes them on
// torch tensors (whether an IoU equal to a threshold counts depends on float32 rounding).
#include <algorithm>

#include "yolo/trainer/metrics.h"

namespace yolo::metrics {

std::array<float, kIouThresholdCount> iou_thresholds() {
  // ATen's CPU linspace kernel (RangeFactoriesKernel.cpp) for float: step in float, the first
  // half counted up from start and the second half down from end. Ten elements are below its
  // vectorised path's minimum (two vectors), so every value comes from this scalar formula.
  constexpr float kStart = 0.5f, kEnd = 0.95f;
  constexpr int kSteps = kIouThresholdCount, kHalfway = kSteps / 2;
  const float step = (kEnd - kStart) / static_cast<float>(kSteps - 1);
  std::array<float, kIouThresholdCount> out{};
  for (int i = 0; i < kSteps; ++i) {
    out[i] = i < kHalfway ? kStart + step * static_cast<float>(i)
                          : kEnd - step * static_cast<float>(kSteps - i - 1);
  }
  return out;
}

float box_iou(const Box& a, const Box& b) {
  // utils/metrics.py: box_iou(box1, box2, eps=1e-7) with float32 tensors.
  constexpr float kEps = 1e-7f;
  const float iw = std::max(std::min(a.x2, b.x2) - std::max(a.x1, b.x1), 0.0f);
  const float ih = std::max(std::min(a.y2, b.y2) - std::max(a.y1, b.y1), 0.0f);
  const float inter = iw * ih;
  const float area_a = (a.x2 - a.x1) * (a.y2 - a.y1);
  const float area_b = (b.x2 - b.x1) * (b.y2 - b.y1);
  return inter / (area_a + area_b - inter + kEps);
}

IouMatrix iou_matrix(const std::vector<Label>& labels, const std::vector<Prediction>& predictions) {
  IouMatrix m;
  m.labels = static_cast<int>(labels.size());
  m.predictions = static_cast<int>(predictions.size());
  m.values.reserve(labels.size() * predictions.size());
  for (const Label& label : labels) {
    for (const Prediction& pred : predictions) m.values.push_back(box_iou(label.box, pred.box));
  }
  return m;
}

}  // namespace yolo::metrics
