// The validation IoU thresholds and the label x prediction IoU matrix, in float32 as Ultralytics
// computes them on torch tensors (whether an IoU equal to a threshold counts depends on float32
// rounding; the IoU itself is the box-maths module's).
#include "yolo/trainer/metrics/metrics.h"

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

IouMatrix iou_matrix(const std::vector<Label>& labels, const std::vector<Prediction>& predictions) {
  IouMatrix m;
  m.labels = static_cast<int>(labels.size());
  m.predictions = static_cast<int>(predictions.size());
  m.values.reserve(labels.size() * predictions.size());
  for (const Label& label : labels) {
    for (const Prediction& pred : predictions) m.values.push_back(boxes::iou(label.box, pred.box));
  }
  return m;
}

}  // namespace yolo::metrics
