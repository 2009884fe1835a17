// utils/metrics.py: compute_ap, smooth and ap_per_class, in float64 with NumPy's order of
// operations (see numpy_compat.h).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>

#include "numpy_compat.h"
#include "yolo/trainer/metrics/metrics.h"

namespace yolo::metrics {
namespace {

constexpr double kEps = 1e-16;             // ap_per_class(eps=1e-16)
constexpr int kApPoints = 101;             // compute_ap: COCO's 101 recall points
constexpr double kF1SmoothFraction = 0.1;  // ap_per_class: smooth(f1_curve.mean(0), 0.1)

// np.maximum: NaN propagates.
double maximum(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  return std::max(a, b);
}

}  // namespace

ApCurve compute_ap(const std::vector<double>& recall, const std::vector<double>& precision) {
  if (recall.size() != precision.size()) {
    throw std::invalid_argument("compute_ap: recall and precision differ in length");
  }
  ApCurve out;
  // Sentinels: the curve starts at (recall 0, precision 1), drops to precision 0 at the last
  // recall reached and runs on at 0 to recall 1.
  out.mrec.reserve(recall.size() + 3);
  out.mrec.push_back(0.0);
  out.mrec.insert(out.mrec.end(), recall.begin(), recall.end());
  out.mrec.push_back(recall.empty() ? 1.0 : recall.back());
  out.mrec.push_back(1.0);
  out.mpre.reserve(precision.size() + 3);
  out.mpre.push_back(1.0);
  out.mpre.insert(out.mpre.end(), precision.begin(), precision.end());
  out.mpre.push_back(0.0);
  out.mpre.push_back(0.0);
  // np.flip(np.maximum.accumulate(np.flip(mpre))): the envelope, non-increasing in recall.
  for (std::size_t i = out.mpre.size() - 1; i-- > 0;) {
    out.mpre[i] = maximum(out.mpre[i + 1], out.mpre[i]);
  }
  const std::vector<double> x = numpy::linspace(0, 1, kApPoints);
  out.ap = numpy::trapezoid(numpy::interp(x, out.mrec, out.mpre), x);
  return out;
}

std::vector<double> smooth(const std::vector<double>& y, double f) {
  if (y.empty()) return {};
  // nf = round(len(y) * f * 2) // 2 + 1: Python's round() rounds halves to even, as nearbyint.
  const auto nf =
      static_cast<std::size_t>(std::nearbyint(static_cast<double>(y.size()) * f * 2)) / 2 + 1;
  const std::size_t pad = nf / 2;
  std::vector<double> padded(pad, y.front());
  padded.insert(padded.end(), y.begin(), y.end());
  padded.insert(padded.end(), pad, y.back());
  // np.convolve(yp, np.ones(nf) / nf, mode="valid"): a dot product per output. NumPy hands the
  // dot to BLAS where it can, whose summation order may differ in the last bit; this sums in
  // index order.
  const double tap = 1.0 / static_cast<double>(nf);
  std::vector<double> out(padded.size() - nf + 1);
  for (std::size_t i = 0; i < out.size(); ++i) {
    double acc = 0.0;
    for (std::size_t k = 0; k < nf; ++k) acc += padded[i + k] * tap;
    out[i] = acc;
  }
  return out;
}

namespace {

// Recall and precision after each of a class's predictions (in confidence order), per IoU
// threshold: cumulative TP and FP counts over the class's n_l labels.
struct PrCurves {
  std::array<std::vector<double>, kIouThresholdCount> recall, precision;
};

PrCurves cumulative_pr(const std::vector<TpRow>& tp, const std::vector<std::size_t>& picked,
                       int n_l) {
  PrCurves out;
  const std::size_t n_p = picked.size();
  for (int j = 0; j < kIouThresholdCount; ++j) {
    out.recall[j].resize(n_p);
    out.precision[j].resize(n_p);
    long long tpc = 0, fpc = 0;
    for (std::size_t k = 0; k < n_p; ++k) {
      if (tp[picked[k]][j]) {
        ++tpc;
      } else {
        ++fpc;
      }
      out.recall[j][k] = static_cast<double>(tpc) / (static_cast<double>(n_l) + kEps);
      out.precision[j][k] = static_cast<double>(tpc) / static_cast<double>(tpc + fpc);
    }
  }
  return out;
}

// F1 = 2 * p * r / (p + r + eps), and its class mean at each confidence (a column sum in row
// order, as NumPy reduces axis 0 of a C-ordered array); the operating point is the smoothed
// mean's maximum, and P, R and F1 are read there.
void add_f1_and_operating_point(ApPerClass& out) {
  const std::size_t nc = out.p_curve.size();
  out.f1_curve.assign(nc, std::vector<double>(kCurvePoints, 0.0));
  std::vector<double> mean_f1(kCurvePoints, 0.0);
  for (std::size_t c = 0; c < nc; ++c) {
    for (int k = 0; k < kCurvePoints; ++k) {
      const double p = out.p_curve[c][k], r = out.r_curve[c][k];
      out.f1_curve[c][k] = 2 * p * r / (p + r + kEps);
      mean_f1[k] += out.f1_curve[c][k];
    }
  }
  for (double& v : mean_f1) v /= static_cast<double>(nc);  // NaN without classes, as NumPy
  out.operating_index = numpy::argmax(smooth(mean_f1, kF1SmoothFraction));
  for (std::size_t c = 0; c < nc; ++c) {
    out.p.push_back(out.p_curve[c][out.operating_index]);
    out.r.push_back(out.r_curve[c][out.operating_index]);
    out.f1.push_back(out.f1_curve[c][out.operating_index]);
  }
}

}  // namespace

ApPerClass ap_per_class(const std::vector<TpRow>& tp, const std::vector<float>& conf,
                        const std::vector<int>& pred_classes,
                        const std::vector<int>& target_classes) {
  if (tp.size() != conf.size() || tp.size() != pred_classes.size()) {
    throw std::invalid_argument("ap_per_class: tp, conf and pred_classes differ in length");
  }
  // Sort by objectness: np.argsort(-conf).
  std::vector<std::size_t> order(conf.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return -conf[a] < -conf[b]; });

  // np.unique(target_cls, return_counts=True)
  std::map<int, int> label_counts;
  for (int c : target_classes) ++label_counts[c];

  ApPerClass out;
  out.x = numpy::linspace(0, 1, kCurvePoints);
  std::vector<double> neg_x(out.x.size());
  for (std::size_t k = 0; k < out.x.size(); ++k) neg_x[k] = -out.x[k];
  const std::size_t nc = label_counts.size();
  const std::vector<double> zeros(kCurvePoints, 0.0);
  out.ap.assign(nc, {});
  out.p_curve.assign(nc, zeros);
  out.r_curve.assign(nc, zeros);
  out.pr_curve.assign(nc, zeros);

  std::size_t ci = 0;
  for (const auto& [cls, n_l] : label_counts) {
    out.classes.push_back(cls);
    out.instances.push_back(n_l);
    std::vector<std::size_t> picked;  // this class's predictions, by confidence
    for (std::size_t i : order) {
      if (pred_classes[i] == cls) picked.push_back(i);
    }
    if (picked.empty()) {
      ++ci;
      continue;
    }
    // Cumulative TP/FP counts per threshold -> recall and precision curves.
    const std::size_t n_p = picked.size();
    const PrCurves pr = cumulative_pr(tp, picked, n_l);
    const auto& recall = pr.recall;
    const auto& precision = pr.precision;
    // Curves over confidence: np.interp(-x, -conf[i], ...) because confidence decreases.
    std::vector<double> neg_conf(n_p);
    for (std::size_t k = 0; k < n_p; ++k) neg_conf[k] = -static_cast<double>(conf[picked[k]]);
    out.r_curve[ci] = numpy::interp(neg_x, neg_conf, recall[0], 0.0, recall[0].back());
    out.p_curve[ci] = numpy::interp(neg_x, neg_conf, precision[0], 1.0, precision[0].back());
    for (int j = 0; j < kIouThresholdCount; ++j) {
      const ApCurve curve = compute_ap(recall[j], precision[j]);
      out.ap[ci][j] = curve.ap;
      if (j == 0) out.pr_curve[ci] = numpy::interp(out.x, curve.mrec, curve.mpre);
    }
    ++ci;
  }

  add_f1_and_operating_point(out);
  return out;
}

}  // namespace yolo::metrics
