// utils/metrics.py: plot_pr_curve and plot_mc_curve, as called from ap_per_class.
#include <fmt/format.h>

#include <algorithm>

#include "chart.h"
#include "metrics/numpy_compat.h"
#include "yolo/trainer/plots/metric_plots.h"
#include "yolo/trainer/plots/plots.h"

namespace yolo {
namespace {

// Per-class lines get a legend entry only below this many classes (plot_pr_curve, plot_mc_curve).
constexpr std::size_t kMaxLegendClasses = 21;
// The class-mean line: linewidth 3 in matplotlib's "blue".
const cv::Scalar kMeanColour(255, 0, 0);
constexpr int kClassLine = 2, kMeanLine = 6;
// plot_mc_curve smooths the class mean with smooth(py.mean(0), 0.1).
constexpr double kMeanSmoothFraction = 0.1;

std::string class_name(const std::map<int, std::string>& names, int cls) {
  const auto it = names.find(cls);
  return it == names.end() ? std::to_string(cls) : it->second;
}

// The per-class lines: coloured and labelled when the legend fits, grey otherwise.
void add_class_lines(chart::LineChart& chart, const metrics::ApPerClass& ap,
                     const std::vector<std::vector<double>>& rows,
                     const std::map<int, std::string>& names, bool with_ap) {
  const bool legend = !rows.empty() && rows.size() < kMaxLegendClasses;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    chart::Series line{ap.x, rows[i], chart::kGrey, kClassLine, ""};
    if (legend) {
      line.colour = class_colour(ap.classes[i]);
      line.label = class_name(names, ap.classes[i]);
      if (with_ap) line.label += fmt::format(" {:.3f}", ap.ap[i][0]);
    }
    chart.add(std::move(line));
  }
}

// Mean over classes at each x (np.mean over axis 0: rows summed in order).
std::vector<double> class_mean(const std::vector<std::vector<double>>& rows, std::size_t n) {
  std::vector<double> mean(n, 0.0);
  for (const auto& row : rows) {
    for (std::size_t k = 0; k < n; ++k) mean[k] += row[k];
  }
  for (double& v : mean) v /= static_cast<double>(rows.size());
  return mean;
}

}  // namespace

cv::Mat plot_pr_curve(const metrics::ApPerClass& ap, const std::map<int, std::string>& names) {
  chart::LineChart chart({kCurvePlotWidth, kCurvePlotHeight}, "Precision-Recall Curve", "Recall",
                         "Precision");
  add_class_lines(chart, ap, ap.pr_curve, names, true);
  if (!ap.pr_curve.empty()) {
    std::vector<double> ap50;
    for (const auto& row : ap.ap) ap50.push_back(row[0]);
    chart.add({ap.x, class_mean(ap.pr_curve, ap.x.size()), kMeanColour, kMeanLine,
               fmt::format("all classes {:.3f} mAP@0.5", metrics::numpy::mean(ap50))});
  }
  return chart.render();
}

cv::Mat plot_confidence_curve(const metrics::ApPerClass& ap, ConfidenceCurve curve,
                              const std::map<int, std::string>& names) {
  const char* ylabel = curve == ConfidenceCurve::kF1          ? "F1"
                       : curve == ConfidenceCurve::kPrecision ? "Precision"
                                                              : "Recall";
  const auto& rows = curve == ConfidenceCurve::kF1          ? ap.f1_curve
                     : curve == ConfidenceCurve::kPrecision ? ap.p_curve
                                                            : ap.r_curve;
  chart::LineChart chart({kCurvePlotWidth, kCurvePlotHeight},
                         fmt::format("{}-Confidence Curve", ylabel), "Confidence", ylabel);
  add_class_lines(chart, ap, rows, names, false);
  if (!rows.empty()) {
    const std::vector<double> y =
        metrics::smooth(class_mean(rows, ap.x.size()), kMeanSmoothFraction);
    const std::size_t best = metrics::numpy::argmax(y);
    chart.add({ap.x, y, kMeanColour, kMeanLine,
               fmt::format("all classes {:.2f} at {:.3f}", y[best], ap.x[best])});
  }
  return chart.render();
}

std::vector<std::filesystem::path> save_metric_curve_plots(const std::filesystem::path& dir,
                                                           const metrics::ApPerClass& ap,
                                                           const std::map<int, std::string>& names,
                                                           const std::string& prefix) {
  const std::vector<std::filesystem::path> paths = {
      dir / (prefix + "PR_curve.png"), dir / (prefix + "F1_curve.png"),
      dir / (prefix + "P_curve.png"), dir / (prefix + "R_curve.png")};
  save_plot(paths[0], plot_pr_curve(ap, names));
  save_plot(paths[1], plot_confidence_curve(ap, ConfidenceCurve::kF1, names));
  save_plot(paths[2], plot_confidence_curve(ap, ConfidenceCurve::kPrecision, names));
  save_plot(paths[3], plot_confidence_curve(ap, ConfidenceCurve::kRecall, names));
  return paths;
}

}  // namespace yolo
