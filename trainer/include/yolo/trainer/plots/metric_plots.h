// Validation plots, as Ultralytics writes them at the end of training and after `val`
// (utils/metrics.py: plot_pr_curve, plot_mc_curve, ConfusionMatrix.plot): drawn with OpenCV,
// written as PNG atomically.
//
//   BoxPR_curve.png   precision over recall at IoU 0.5 per class (legend "name 0.912" when fewer
//                     than 21 classes, else grey lines) and bold blue "all classes 0.912 mAP@0.5"
//   BoxF1_curve.png,  F1 / precision / recall over confidence per class and the bold blue class
//   BoxP_curve.png,   mean, box-filtered, labelled "all classes 0.87 at 0.412" (its maximum and
//   BoxR_curve.png    where it is)
//   confusion_matrix.png, confusion_matrix_normalized.png
//                     predicted (rows) x true (columns) with background, Blues colour scale and
//                     bar, counts or column fractions in the cells when fewer than 30 rows
#pragma once

#include <filesystem>
#include <map>
#include <opencv2/core/mat.hpp>
#include <string>
#include <vector>

#include "yolo/trainer/metrics/metrics.h"

namespace yolo {

// Figure sizes in pixels: Ultralytics' 9 x 6 inch curves at 150 dpi and 12 x 9 inch confusion
// matrices at 120 dpi.
inline constexpr int kCurvePlotWidth = 1350, kCurvePlotHeight = 900;
inline constexpr int kConfusionPlotWidth = 1440, kConfusionPlotHeight = 1080;

// Which per-class curve plot_confidence_curve draws.
enum class ConfidenceCurve { kF1, kPrecision, kRecall };

// The PR curve from ap_per_class's pr_curve rows; names map class ids to names (ids without a
// name show the id).
cv::Mat plot_pr_curve(const metrics::ApPerClass& ap, const std::map<int, std::string>& names);

// F1, precision or recall over confidence ("F1-Confidence Curve", ...).
cv::Mat plot_confidence_curve(const metrics::ApPerClass& ap, ConfidenceCurve curve,
                              const std::map<int, std::string>& names);

// The confusion matrix, raw counts or normalised by column ("Confusion Matrix Normalized").
// Above 99 classes every k-th class (k = max(2, nc / 60)) is shown, plus background.
cv::Mat plot_confusion_matrix(const metrics::ConfusionMatrix& matrix,
                              const std::map<int, std::string>& names, bool normalize);

// Writes {prefix}PR_curve.png, {prefix}F1_curve.png, {prefix}P_curve.png and {prefix}R_curve.png
// into dir; returns their paths. Throws std::runtime_error naming a file that cannot be written.
std::vector<std::filesystem::path> save_metric_curve_plots(const std::filesystem::path& dir,
                                                           const metrics::ApPerClass& ap,
                                                           const std::map<int, std::string>& names,
                                                           const std::string& prefix = "Box");

// Writes confusion_matrix.png and confusion_matrix_normalized.png into dir; returns their paths.
std::vector<std::filesystem::path> save_confusion_matrix_plots(
    const std::filesystem::path& dir, const metrics::ConfusionMatrix& matrix,
    const std::map<int, std::string>& names);

}  // namespace yolo
