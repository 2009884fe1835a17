// engine/validator.py (8.4.190): BaseValidator.match_predictions, the greedy (non-scipy) path,
// with NumPy's comparisons and argmax reproduced step by step.
#include <cmath>
#include <stdexcept>
#include <string>

#include "numpy_compat.h"
#include "yolo/trainer/metrics/metrics.h"

namespace yolo::metrics {
namespace {

// iou * correct_class in float32: the IoU where the classes agree, else 0 (NaN stays NaN, as
// NaN * 0 does).
float class_masked(float iou, bool same_class) {
  return same_class || std::isnan(iou) ? iou : 0.0f;
}

}  // namespace

std::vector<TpRow> match_predictions(const std::vector<int>& pred_classes,
                                     const std::vector<int>& true_classes, const IouMatrix& iou) {
  const int n_labels = static_cast<int>(true_classes.size());
  const int n_preds = static_cast<int>(pred_classes.size());
  if (iou.labels != n_labels || iou.predictions != n_preds ||
      iou.values.size() != static_cast<std::size_t>(n_labels) * n_preds) {
    throw std::invalid_argument("match_predictions: IoU matrix is " + std::to_string(iou.labels) +
                                " x " + std::to_string(iou.predictions) + " but there are " +
                                std::to_string(n_labels) + " labels and " +
                                std::to_string(n_preds) + " predictions");
  }
  std::vector<TpRow> correct(pred_classes.size(), TpRow{});
  if (n_labels == 0) return correct;
  const auto thresholds = iou_thresholds();
  std::vector<TpRow> claimed(static_cast<std::size_t>(n_labels), TpRow{});  // matched[label][t]
  std::vector<float> column(static_cast<std::size_t>(n_labels));
  std::vector<float> available(static_cast<std::size_t>(n_labels));
  for (int p = 0; p < n_preds; ++p) {
    // np.flatnonzero((iou >= thresholds.min()).any(0)): predictions, in the given (confidence)
    // order, with some same-class label at IoU >= the lowest threshold.
    bool candidate = false;
    for (int l = 0; l < n_labels; ++l) {
      column[l] = class_masked(iou.at(l, p), true_classes[l] == pred_classes[p]);
      candidate = candidate || column[l] >= thresholds[0];
    }
    if (!candidate) continue;
    for (int t = 0; t < kIouThresholdCount; ++t) {
      // available = np.where(matched, 0, iou[:, j]); k = available.argmax(0)
      for (int l = 0; l < n_labels; ++l) available[l] = claimed[l][t] ? 0.0f : column[l];
      const std::size_t k = numpy::argmax(available);
      // correct[j] = available[k] >= thresholds; matched[k] |= correct[j]
      correct[p][t] = available[k] >= thresholds[t];
      claimed[k][t] = claimed[k][t] || correct[p][t];
    }
  }
  return correct;
}

}  // namespace yolo::metrics
