// engine/validator.py: BaseValidator.match_predictions, the greedy (non-scipy) path, with NumPy's
// ordering reproduced step by step.
#include <stdexcept>
#include <string>

#include "numpy_compat.h"
#include "yolo/trainer/metrics/metrics.h"

namespace yolo::metrics {

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
  const auto thresholds = iou_thresholds();
  for (int t = 0; t < kIouThresholdCount; ++t) {
    // np.nonzero(iou * correct_class >= threshold): row-major (label, prediction) pairs. Zeroed
    // wrong-class IoUs can never pass, as every threshold is above 0.
    std::vector<int> label_index, pred_index;
    std::vector<float> pair_iou;
    for (int l = 0; l < n_labels; ++l) {
      for (int p = 0; p < n_preds; ++p) {
        const float v = true_classes[l] == pred_classes[p] ? iou.at(l, p) : 0.0f;
        if (v >= thresholds[t]) {
          label_index.push_back(l);
          pred_index.push_back(p);
          pair_iou.push_back(v);
        }
      }
    }
    if (pair_iou.empty()) continue;
    std::vector<std::size_t> kept = {0};  // a single pair needs no dedupe
    if (pair_iou.size() > 1) {
      // matches[iou.argsort()[::-1]]
      const std::vector<std::size_t> by_iou = numpy::argsort_descending(pair_iou);
      // matches[np.unique(matches[:, 1], return_index=True)[1]]: first per prediction; the
      // survivors come out ordered by prediction index.
      std::vector<int> preds_sorted;
      for (std::size_t i : by_iou) preds_sorted.push_back(pred_index[i]);
      std::vector<std::size_t> per_pred;
      for (std::size_t i : numpy::unique_first_indices(preds_sorted)) per_pred.push_back(by_iou[i]);
      // matches[np.unique(matches[:, 0], return_index=True)[1]]: first per label, in that order
      // (Ultralytics does not re-sort by IoU here).
      std::vector<int> labels_sorted;
      for (std::size_t i : per_pred) labels_sorted.push_back(label_index[i]);
      kept.clear();
      for (std::size_t i : numpy::unique_first_indices(labels_sorted)) kept.push_back(per_pred[i]);
    }
    for (std::size_t i : kept) correct[pred_index[i]][t] = true;
  }
  return correct;
}

}  // namespace yolo::metrics
