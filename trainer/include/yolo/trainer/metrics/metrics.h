// Detection validation metrics, computed exactly as Ultralytics 8.4 computes them
// (ultralytics/utils/metrics.py, engine/validator.py, models/yolo/detect/val.py):
//
//   per image:  IoU (labels x predictions) -> match_predictions -> a TP row per prediction
//               (DetectionStats::add_image, ConfusionMatrix::process_batch)
//   at the end: ap_per_class -> mean P, R, mAP50, mAP75, mAP50-95, fitness
//               (compute_detection_metrics), the printed table (format_metrics_table)
//
// Boxes are xyxy in one coordinate space for labels and predictions (Ultralytics 8.4 uses the
// letterboxed input space). Arithmetic follows Ultralytics' dtypes: IoU and thresholds in float32
// (torch), curves and AP in float64 (NumPy), with NumPy's order of operations, so results match
// to the last bit except where Ultralytics itself depends on the machine (BLAS summation order in
// `smooth`, tie order in NumPy's SIMD sorts).
//
// Plain C++: no LibTorch here. Plots of these results are in yolo/trainer/metric_plots.h.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "yolo/core/box_math.h"
#include "yolo/runtime/inference_settings.h"

namespace yolo::metrics {

// Number of IoU thresholds (Ultralytics' validator.iouv, niou).
inline constexpr int kIouThresholdCount = 10;
// Column of the 0.75 threshold in a TP row or an AP row (Metric.map75).
inline constexpr int kIou75Column = 5;

// torch.linspace(0.5, 0.95, 10) in float32, value for value (0.5, 0.55000001, ..., 0.94999999).
std::array<float, kIouThresholdCount> iou_thresholds();

// Whether a prediction is a true positive at each IoU threshold.
using TpRow = std::array<bool, kIouThresholdCount>;

// Fitness weights for [P, R, mAP50, mAP50-95] (Metric.fitness: [0, 0, 0, 1] since 8.3.198; it
// was [0, 0, 0.1, 0.9] before). best.pt is the checkpoint with the highest fitness.
inline constexpr std::array<double, 4> kFitnessWeights = {0.0, 0.0, 0.0, 1.0};

// Confusion matrix defaults (ConfusionMatrix.process_batch): detections count when conf > 0.25;
// a detection and a label match when IoU > 0.45. Validation passes its own conf (0.001 by
// default; DetectionValidator.update_metrics, 8.4.190), so its matrix counts every prediction
// NMS kept.
inline constexpr double kConfusionConf = 0.25;
inline constexpr double kConfusionIou = 0.45;

// Axis-aligned box, corners in pixels (the box-maths module's type).
using Box = boxes::Xyxy;

// One prediction after NMS: box, confidence 0..1, class id.
struct Prediction {
  Box box;
  float conf = 0;
  int cls = 0;
};

// One ground-truth object.
struct Label {
  Box box;
  int cls = 0;
};

// IoU of every label (rows) with every prediction (columns), row-major.
struct IouMatrix {
  int labels = 0;
  int predictions = 0;
  std::vector<float> values;  // labels * predictions
  float at(int label, int prediction) const {
    return values[static_cast<std::size_t>(label) * predictions + prediction];
  }
};
IouMatrix iou_matrix(const std::vector<Label>& labels, const std::vector<Prediction>& predictions);

// engine/validator.py: match_predictions (the non-scipy path of 8.4.190). Predictions are taken
// in the order given, which must be descending confidence (NMS's output order): each takes, per
// IoU threshold t, the same-class label with the highest IoU not yet claimed at t (the first on
// ties), and is a true positive at t when that IoU is >= t; the label is then claimed at t.
// Returns one row per prediction. Throws std::invalid_argument if the sizes disagree.
std::vector<TpRow> match_predictions(const std::vector<int>& pred_classes,
                                     const std::vector<int>& true_classes, const IouMatrix& iou);

// Everything validation collects per image (DetMetrics.stats in detect/val.py: update_metrics).
class DetectionStats {
 public:
  // num_classes: the dataset's nc (the length of per-class counts; larger ids extend them).
  explicit DetectionStats(int num_classes);

  // One image. Predictions and labels share a coordinate space. Throws std::invalid_argument for
  // negative class ids.
  void add_image(const std::vector<Prediction>& predictions, const std::vector<Label>& labels);

  // Appends precomputed rows for one image (tp.size() == predictions.size()).
  void add_image(const std::vector<TpRow>& tp, const std::vector<Prediction>& predictions,
                 const std::vector<Label>& labels);

  int num_classes() const { return num_classes_; }
  int images() const { return images_; }  // validator.seen
  const std::vector<TpRow>& tp() const { return tp_; }
  const std::vector<float>& conf() const { return conf_; }
  const std::vector<int>& pred_classes() const { return pred_classes_; }
  const std::vector<int>& target_classes() const { return target_classes_; }
  // Labels per class (nt_per_class) and images containing the class (nt_per_image), each at
  // least num_classes long.
  std::vector<int> instances_per_class() const;
  std::vector<int> images_per_class() const;

  void clear();

 private:
  int num_classes_;
  int images_ = 0;
  std::vector<TpRow> tp_;
  std::vector<float> conf_;
  std::vector<int> pred_classes_;
  std::vector<int> target_classes_;
  std::vector<int> target_images_;  // per image, its distinct label classes
};

// compute_ap (8.4.190): average precision of one recall/precision curve (recall ascending).
// Sentinels recall [0, ..., r_last, 1] and precision [1, ..., 0, 0] (r_last is the last recall,
// 1 for an empty curve), so precision drops to 0 right after the last recall reached; then the
// precision envelope (running max from the right) and the trapezoid integral of the envelope at
// 101 recall points. Also returns the envelope and the sentinel-extended recall. A perfect curve
// scores 0.995, not 1: at recall 1 np.interp takes the last of the equal points, a sentinel's
// precision 0, so the last of the 100 trapezoids is half height (hence Ultralytics' familiar
// mAP50 ceiling of 0.995).
struct ApCurve {
  double ap = 0;
  std::vector<double> mpre;  // precision envelope, size recall.size() + 3
  std::vector<double> mrec;  // [0, recall..., r_last, 1]
};
ApCurve compute_ap(const std::vector<double>& recall, const std::vector<double>& precision);

// smooth: box filter over a fraction f of the length: nf = round(len * f * 2) // 2 + 1 taps,
// nf // 2 copies of the end values padded on each side, NumPy's "valid" convolution. The output
// is as long as the input when nf is odd (101 taps for the 1000-point curves), one longer when
// nf is even, as in Ultralytics.
std::vector<double> smooth(const std::vector<double>& y, double f = 0.05);

// Number of points of the P, R, F1 and PR curves (x = linspace(0, 1, 1000)).
inline constexpr int kCurvePoints = 1000;

// ap_per_class results. Rows are the classes that have labels, ascending; predictions of other
// classes are ignored. A class with labels but no predictions has AP 0 and all-zero curves.
struct ApPerClass {
  std::vector<int> classes;                                // unique_classes (ap_class_index)
  std::vector<int> instances;                              // labels per row (nt)
  std::vector<std::array<double, kIouThresholdCount>> ap;  // AP per row and IoU threshold
  std::vector<double> p, r, f1;                            // per row at the operating point
  std::size_t operating_index = 0;            // argmax of smooth(mean F1, 0.1): index into x
  std::vector<double> x;                      // linspace(0, 1, 1000): confidence, or recall for PR
  std::vector<std::vector<double>> p_curve;   // per row: precision at confidence x
  std::vector<std::vector<double>> r_curve;   // per row: recall at confidence x
  std::vector<std::vector<double>> f1_curve;  // per row: 2PR / (P + R + 1e-16)
  // Per row: the IoU-0.5 precision envelope at recall x (prec_values, the PR plot). Ultralytics
  // leaves out rows of classes without predictions (shifting the plot's legend); here they are
  // all zero so that row i is always class classes[i].
  std::vector<std::vector<double>> pr_curve;
};

// ap_per_class. tp, conf and pred_classes: one entry per prediction; target_classes: one per
// label. Predictions are ranked by confidence, descending, ties kept in input order (NumPy's
// argsort of -conf, stable for the small arrays where that is defined). Throws
// std::invalid_argument if the prediction arrays differ in length.
ApPerClass ap_per_class(const std::vector<TpRow>& tp, const std::vector<float>& conf,
                        const std::vector<int>& pred_classes,
                        const std::vector<int>& target_classes);

// One row of the results table (Metric.class_result plus DetMetrics' counts).
struct ClassMetrics {
  int cls = 0;
  int images = 0;     // images containing the class
  int instances = 0;  // labels of the class
  double p = 0, r = 0, ap50 = 0, ap50_95 = 0;
};

// DetMetrics.process + Metric: the numbers validation reports.
struct DetectionMetrics {
  ApPerClass per_class;                  // curves and per-class values
  int images = 0;                        // images validated (seen)
  std::vector<int> instances_per_class;  // nt_per_class, indexed by class id
  std::vector<int> images_per_class;     // nt_per_image, indexed by class id
  // Means over per_class rows (0 when there are no labels): P and R at the operating point,
  // AP at IoU 0.5, at 0.75, and averaged over the 10 thresholds.
  double mp = 0, mr = 0, map50 = 0, map75 = 0, map50_95 = 0;

  // sum(kFitnessWeights * [mp, mr, map50, map50_95]), NaN counted as 0.
  double fitness() const;
  // Per class id 0..nc-1: the class's mAP50-95, or the overall mAP50-95 for classes without
  // labels (Metric.maps).
  std::vector<double> maps(int nc) const;
  // Row i of per_class (i < per_class.classes.size()).
  ClassMetrics class_result(std::size_t i) const;
  // Total labels (nt_per_class.sum()).
  int instances() const;
};

// All of the above from the collected stats.
DetectionMetrics compute_detection_metrics(const DetectionStats& stats);

// (nc + 1) x (nc + 1) counts; rows = predicted class, columns = true class, index nc =
// background (utils/metrics.py: ConfusionMatrix, detect task).
class ConfusionMatrix {
 public:
  // conf: detections count when conf > this. Throws std::invalid_argument for num_classes < 1.
  explicit ConfusionMatrix(int num_classes, double conf = kConfusionConf,
                           double iou_threshold = kConfusionIou);

  // One image (process_batch, 8.4.190). Matching is greedy and one-to-one, whatever the classes:
  // by descending confidence, each detection with some IoU above the threshold claims its best
  // unclaimed label. A claimed label counts at [detection class][label class]; other labels at
  // [background][label class]; unclaimed detections at [detection class][background].
  // Throws std::invalid_argument for class ids outside 0..nc-1.
  void process_batch(const std::vector<Prediction>& detections, const std::vector<Label>& labels);

  int num_classes() const { return nc_; }
  double conf_threshold() const { return conf_; }
  double iou_threshold() const { return iou_; }
  double at(int predicted, int truth) const {
    return matrix_[static_cast<std::size_t>(predicted) * (nc_ + 1) + truth];
  }
  // Row-major (nc + 1) x (nc + 1).
  const std::vector<double>& matrix() const { return matrix_; }
  // Each column divided by its sum (+ 1e-9), as the normalised plot shows it.
  std::vector<double> normalized() const;
  // Diagonal (true positives) and row sums minus diagonal (false positives), background removed.
  std::vector<double> true_positives() const;
  std::vector<double> false_positives() const;

 private:
  void add(int predicted, int truth) {
    matrix_[static_cast<std::size_t>(predicted) * (nc_ + 1) + truth] += 1;
  }
  int nc_;
  double conf_;
  double iou_;
  std::vector<double> matrix_;
};

// The header Ultralytics prints above the table (DetectionValidator.get_desc):
// "%22s%11s%11s%11s%11s%11s%11s" of Class Images Instances Box(P R mAP50 mAP50-95).
std::string metrics_table_header();

// The results table as validation prints it: the header (followed by ':' where the progress bar
// ends in Ultralytics), the "all" row (images seen, all labels, mean P R mAP50 mAP50-95), then,
// when per_class and more than one class is named, a row per class with labels. Row format
// "%22s%11i%11i%11.3g%11.3g%11.3g%11.3g". Lines end in '\n'. Classes without a name show their id.
std::string format_metrics_table(const DetectionMetrics& metrics,
                                 const std::map<int, std::string>& names, bool per_class = true);

}  // namespace yolo::metrics
