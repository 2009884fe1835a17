// utils/metrics.py (8.4.190): ConfusionMatrix for the detect task (process_batch, tp_fp, and the
// column normalisation of plot()).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "numpy_compat.h"
#include "yolo/trainer/metrics/metrics.h"

namespace yolo::metrics {
ConfusionMatrix::ConfusionMatrix(int num_classes, double conf, double iou_threshold)
    : nc_(num_classes), conf_(conf), iou_(iou_threshold) {
  if (num_classes < 1) {
    throw std::invalid_argument("ConfusionMatrix: needs at least one class, got " +
                                std::to_string(num_classes));
  }
  matrix_.assign(static_cast<std::size_t>(nc_ + 1) * (nc_ + 1), 0.0);
}

void ConfusionMatrix::process_batch(const std::vector<Prediction>& detections,
                                    const std::vector<Label>& labels) {
  const auto check = [&](int cls, const char* what) {
    if (cls < 0 || cls >= nc_) {
      throw std::invalid_argument(std::string("ConfusionMatrix: ") + what + " class " +
                                  std::to_string(cls) + " is outside 0.." +
                                  std::to_string(nc_ - 1));
    }
  };
  for (const Prediction& d : detections) check(d.cls, "detection");
  for (const Label& l : labels) check(l.cls, "label");

  // Confidences and IoUs are float32 tensors compared with Python floats, i.e. in float32.
  const float conf = static_cast<float>(conf_);
  const float iou_threshold = static_cast<float>(iou_);
  std::vector<Prediction> kept;
  for (const Prediction& d : detections) {
    if (d.conf > conf) kept.push_back(d);
  }
  if (labels.empty()) {  // every confident detection is a false positive
    for (const Prediction& d : kept) add(d.cls, nc_);
    return;
  }
  if (detections.empty()) {  // every label is missed (before any confidence filter)
    for (const Label& l : labels) add(nc_, l.cls);
    return;
  }

  // Greedy and one-to-one (8.4.190): the detections with some IoU above the threshold, by
  // descending confidence (a stable sort: ties keep their order), each claim their best label
  // still unclaimed (np.argmax: the first of equal IoUs); a claimed label's row is zeroed.
  IouMatrix iou = iou_matrix(labels, kept);
  std::vector<std::size_t> candidates;
  for (int d = 0; d < iou.predictions; ++d) {
    bool above = false;
    for (int l = 0; l < iou.labels; ++l) above = above || iou.at(l, d) > iou_threshold;
    if (above) candidates.push_back(static_cast<std::size_t>(d));
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](std::size_t a, std::size_t b) { return -kept[a].conf < -kept[b].conf; });
  std::vector<int> label_match(labels.size(), -1);  // gt_match: the detection per label
  std::vector<bool> detection_matched(kept.size(), false);
  std::vector<float> column(labels.size());
  for (std::size_t d : candidates) {
    for (int l = 0; l < iou.labels; ++l) column[l] = iou.at(l, static_cast<int>(d));
    const std::size_t best = numpy::argmax(column);  // gt_idx = iou[:, det_idx].argmax()
    if (!(column[best] > iou_threshold)) continue;
    label_match[best] = static_cast<int>(d);
    detection_matched[d] = true;
    std::fill_n(iou.values.begin() + static_cast<std::ptrdiff_t>(best) * iou.predictions,
                iou.predictions, 0.0f);
  }
  for (std::size_t l = 0; l < labels.size(); ++l) {
    // Matched: correct when the classes agree, else both an FP and an FN in one cell.
    add(label_match[l] >= 0 ? kept[label_match[l]].cls : nc_, labels[l].cls);
  }
  for (std::size_t d = 0; d < kept.size(); ++d) {
    if (!detection_matched[d]) add(kept[d].cls, nc_);  // background FP
  }
}

std::vector<double> ConfusionMatrix::normalized() const {
  // matrix / (matrix.sum(0).reshape(1, -1) + 1e-9)
  const int n = nc_ + 1;
  std::vector<double> column_sum(n, 0.0);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) column_sum[c] += at(r, c);
  }
  std::vector<double> out(matrix_.size());
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c)
      out[static_cast<std::size_t>(r) * n + c] = at(r, c) / (column_sum[c] + 1e-9);
  }
  return out;
}

std::vector<double> ConfusionMatrix::true_positives() const {
  std::vector<double> tp(nc_);
  for (int c = 0; c < nc_; ++c) tp[c] = at(c, c);
  return tp;
}

std::vector<double> ConfusionMatrix::false_positives() const {
  std::vector<double> fp(nc_);
  for (int r = 0; r < nc_; ++r) {
    const double row_sum = numpy::sum(matrix_.data() + static_cast<std::size_t>(r) * (nc_ + 1),
                                      static_cast<std::size_t>(nc_ + 1));
    fp[r] = row_sum - at(r, r);
  }
  return fp;
}

}  // namespace yolo::metrics
