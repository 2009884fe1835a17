// utils/metrics.py: DetMetrics.process and the Metric properties (mp, mr, map50, map75, map,
// maps, class_result, fitness).
#include <cmath>
#include <limits>

#include "numpy_compat.h"
#include "yolo/trainer/metrics/metrics.h"

namespace yolo::metrics {
namespace {

// All AP values row-major (nc, 10), as the all_ap array NumPy averages.
std::vector<double> flat_ap(const ApPerClass& a) {
  std::vector<double> flat;
  flat.reserve(a.ap.size() * kIouThresholdCount);
  for (const auto& row : a.ap) flat.insert(flat.end(), row.begin(), row.end());
  return flat;
}

// np.nan_to_num for one value.
double nan_to_num(double v) {
  if (std::isnan(v)) return 0.0;
  if (std::isinf(v)) {
    return v > 0 ? std::numeric_limits<double>::max() : std::numeric_limits<double>::lowest();
  }
  return v;
}

}  // namespace

DetectionMetrics compute_detection_metrics(const DetectionStats& stats) {
  DetectionMetrics m;
  m.per_class =
      ap_per_class(stats.tp(), stats.conf(), stats.pred_classes(), stats.target_classes());
  m.images = stats.images();
  m.instances_per_class = stats.instances_per_class();
  m.images_per_class = stats.images_per_class();
  const std::size_t nc = m.per_class.classes.size();
  if (nc == 0) return m;  // Metric: every mean is 0.0 without rows
  const std::vector<double> ap = flat_ap(m.per_class);
  m.mp = numpy::mean(m.per_class.p);
  m.mr = numpy::mean(m.per_class.r);
  m.map50 = numpy::mean(ap.data(), nc, kIouThresholdCount);
  m.map75 = numpy::mean(ap.data() + kIou75Column, nc, kIouThresholdCount);
  m.map50_95 = numpy::mean(ap);
  return m;
}

double DetectionMetrics::fitness() const {
  // (np.nan_to_num(np.array(mean_results())) * w).sum()
  const std::array<double, 4> results = {mp, mr, map50, map50_95};
  std::array<double, 4> weighted{};
  for (std::size_t i = 0; i < results.size(); ++i) {
    weighted[i] = nan_to_num(results[i]) * kFitnessWeights[i];
  }
  return numpy::sum(weighted.data(), weighted.size());
}

std::vector<double> DetectionMetrics::maps(int nc) const {
  int size = nc;
  for (int c : per_class.classes) size = std::max(size, c + 1);
  std::vector<double> out(static_cast<std::size_t>(std::max(size, 0)), 0.0 + map50_95);
  for (std::size_t i = 0; i < per_class.classes.size(); ++i) {
    out[per_class.classes[i]] = class_result(i).ap50_95;
  }
  return out;
}

ClassMetrics DetectionMetrics::class_result(std::size_t i) const {
  ClassMetrics row;
  row.cls = per_class.classes.at(i);
  const auto count = [&](const std::vector<int>& v) {
    return row.cls < static_cast<int>(v.size()) ? v[row.cls] : 0;
  };
  row.images = count(images_per_class);
  row.instances = count(instances_per_class);
  row.p = per_class.p.at(i);
  row.r = per_class.r.at(i);
  row.ap50 = per_class.ap.at(i)[0];
  row.ap50_95 = numpy::mean(per_class.ap[i].data(), kIouThresholdCount);
  return row;
}

int DetectionMetrics::instances() const {
  int total = 0;
  for (int n : instances_per_class) total += n;
  return total;
}

}  // namespace yolo::metrics
