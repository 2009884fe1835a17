// utils/metrics.py: ConfusionMatrix for the detect task (process_batch, tp_fp, and the column
// normalisation of plot()).
#include <stdexcept>
#include <string>

#include "numpy_compat.h"
#include "yolo/trainer/metrics/metrics.h"

namespace yolo::metrics {
namespace {

// A (label, detection) pair with IoU above the threshold: a row of `matches`.
struct Match {
  int label;
  int detection;
  float iou;
};

// matches[matches[:, 2].argsort()[::-1]] then matches[np.unique(matches[:, key],
// return_index=True)[1]]: the highest-IoU pair per key, ordered by key.
std::vector<Match> best_per_key(const std::vector<Match>& matches, int Match::*key) {
  std::vector<float> ious;
  for (const Match& m : matches) ious.push_back(m.iou);
  std::vector<Match> sorted;
  std::vector<int> keys;
  for (std::size_t i : numpy::argsort_descending(ious)) {
    sorted.push_back(matches[i]);
    keys.push_back(matches[i].*key);
  }
  std::vector<Match> out;
  for (std::size_t i : numpy::unique_first_indices(keys)) out.push_back(sorted[i]);
  return out;
}

}  // namespace

ConfusionMatrix::ConfusionMatrix(int num_classes, std::optional<double> conf, double iou_threshold)
    : nc_(num_classes),
      conf_(!conf || *conf == kValConf ? kConfusionConf : *conf),
      iou_(iou_threshold) {
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

  // torch.where(iou > iou_thres): row-major (label, detection) pairs.
  const IouMatrix iou = iou_matrix(labels, kept);
  std::vector<Match> matches;
  for (int l = 0; l < iou.labels; ++l) {
    for (int d = 0; d < iou.predictions; ++d) {
      if (iou.at(l, d) > iou_threshold) matches.push_back({l, d, iou.at(l, d)});
    }
  }
  if (matches.size() > 1) {
    matches = best_per_key(matches, &Match::detection);  // one label per detection
    matches = best_per_key(matches, &Match::label);      // one detection per label
  }

  for (int l = 0; l < iou.labels; ++l) {
    int count = 0, detection = -1;
    for (const Match& m : matches) {
      if (m.label == l) {
        ++count;
        detection = m.detection;
      }
    }
    // Matched once: correct when the classes agree, else both an FP and an FN in one cell.
    if (count == 1) {
      add(kept[detection].cls, labels[l].cls);
    } else {
      add(nc_, labels[l].cls);  // background FN
    }
  }
  for (int d = 0; d < iou.predictions; ++d) {
    bool matched = false;
    for (const Match& m : matches) matched = matched || m.detection == d;
    if (!matched) add(kept[d].cls, nc_);  // background FP
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
