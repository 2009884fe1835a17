// models/yolo/detect/val.py: DetectionValidator.update_metrics and _process_batch, and
// DetMetrics' per-class counts (np.bincount of target_cls and of each image's unique classes).
#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

#include "yolo/trainer/metrics/metrics.h"

namespace yolo::metrics {
namespace {

void check_class(int cls, const char* what) {
  if (cls < 0) {
    throw std::invalid_argument(std::string("DetectionStats: negative class id ") +
                                std::to_string(cls) + " in a " + what);
  }
}

// np.bincount(values, minlength=n).
std::vector<int> bincount(const std::vector<int>& values, int n) {
  int size = n;
  for (int v : values) size = std::max(size, v + 1);
  std::vector<int> counts(static_cast<std::size_t>(std::max(size, 0)), 0);
  for (int v : values) ++counts[v];
  return counts;
}

}  // namespace

DetectionStats::DetectionStats(int num_classes) : num_classes_(num_classes) {
  if (num_classes < 0) throw std::invalid_argument("DetectionStats: negative number of classes");
}

void DetectionStats::add_image(const std::vector<Prediction>& predictions,
                               const std::vector<Label>& labels) {
  // _process_batch: no labels or no predictions -> every prediction is a false positive.
  if (labels.empty() || predictions.empty()) {
    add_image(std::vector<TpRow>(predictions.size(), TpRow{}), predictions, labels);
    return;
  }
  std::vector<int> pred_classes, true_classes;
  for (const Prediction& p : predictions) pred_classes.push_back(p.cls);
  for (const Label& l : labels) true_classes.push_back(l.cls);
  add_image(match_predictions(pred_classes, true_classes, iou_matrix(labels, predictions)),
            predictions, labels);
}

void DetectionStats::add_image(const std::vector<TpRow>& tp,
                               const std::vector<Prediction>& predictions,
                               const std::vector<Label>& labels) {
  if (tp.size() != predictions.size()) {
    throw std::invalid_argument("DetectionStats: " + std::to_string(tp.size()) + " TP rows for " +
                                std::to_string(predictions.size()) + " predictions");
  }
  for (const Prediction& p : predictions) check_class(p.cls, "prediction");
  for (const Label& l : labels) check_class(l.cls, "label");
  ++images_;
  tp_.insert(tp_.end(), tp.begin(), tp.end());
  std::set<int> classes_in_image;
  for (const Prediction& p : predictions) {
    conf_.push_back(p.conf);
    pred_classes_.push_back(p.cls);
  }
  for (const Label& l : labels) {
    target_classes_.push_back(l.cls);
    classes_in_image.insert(l.cls);
  }
  target_images_.insert(target_images_.end(), classes_in_image.begin(), classes_in_image.end());
}

std::vector<int> DetectionStats::instances_per_class() const {
  return bincount(target_classes_, num_classes_);
}

std::vector<int> DetectionStats::images_per_class() const {
  return bincount(target_images_, num_classes_);
}

void DetectionStats::clear() {
  images_ = 0;
  tp_.clear();
  conf_.clear();
  pred_classes_.clear();
  target_classes_.clear();
  target_images_.clear();
}

}  // namespace yolo::metrics
