// Validation metrics against values worked out by hand from Ultralytics' definitions
// (utils/metrics.py, engine/validator.py of 8.4.190), and the metric plots as files. The same
// functions are held to Ultralytics' own on thousands of random cases in
// tests/parity/test_metrics_parity.cpp.
//
// A number that surprises at first: a class detected perfectly has AP 0.995, not 1. compute_ap
// appends the sentinels (r_last, 0) and (1, 0) after the last real point, which is also at recall
// 1, and np.interp takes the last of equal x values, so the 101-point curve is 1 up to recall 0.99
// and 0 at recall 1.00: 0.99 * 1 + 0.01 * (1 + 0) / 2 = 0.995. That is why Ultralytics never
// reports an mAP50 above 0.995. The same sentinel makes a class whose recall stops at r score
// about r: precision drops to 0 right after the last recall reached (recall 1/2 at precision 1
// scores 0.495).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iterator>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "test_files.h"
#include "yolo/trainer/metrics/metrics.h"
#include "yolo/trainer/plots/metric_plots.h"

namespace fs = std::filesystem;
namespace m = yolo::metrics;

namespace {

constexpr double kTol = 1e-12;
constexpr double kPerfectAp = 0.995;  // see the file comment

m::Label label(int cls, float x1, float y1, float x2, float y2) {
  return {{x1, y1, x2, y2}, cls};
}

m::Prediction pred(int cls, float conf, float x1, float y1, float x2, float y2) {
  return {{x1, y1, x2, y2}, conf, cls};
}

m::TpRow all(bool v) {
  m::TpRow row;
  row.fill(v);
  return row;
}

// A 1 x n or n x 1 IoU matrix, or any shape, from values in row-major order.
m::IouMatrix iou(int labels, int predictions, std::vector<float> values) {
  return {labels, predictions, std::move(values)};
}

std::size_t count_true(const m::TpRow& row) {
  std::size_t n = 0;
  for (bool b : row) n += b;
  return n;
}

}  // namespace

// The thresholds are torch.linspace(0.5, 0.95, 10) in float32: exactly the float literals.
TEST(Metrics, IouThresholdsAreTorchLinspace) {
  const std::array<float, 10> expected = {0.5f,  0.55f, 0.6f,  0.65f, 0.7f,
                                          0.75f, 0.8f,  0.85f, 0.9f,  0.95f};
  EXPECT_EQ(m::iou_thresholds(), expected);
}

// Labels are rows, predictions columns (the IoU itself is tested with the box-maths module).
TEST(Metrics, IouMatrix) {
  const m::IouMatrix mat =
      m::iou_matrix({label(0, 0, 0, 10, 10), label(0, 0, 0, 10, 5)}, {pred(0, 1, 0, 0, 10, 5)});
  ASSERT_EQ(mat.labels, 2);
  ASSERT_EQ(mat.predictions, 1);
  EXPECT_EQ(mat.at(0, 0), 0.5f);
  EXPECT_EQ(mat.at(1, 0), 1.0f);
}

// IoU equal to a threshold counts (>=); one float step below does not.
TEST(Metrics, MatchIouExactlyAtThreshold) {
  const auto t = m::iou_thresholds();
  auto rows = m::match_predictions({0}, {0}, iou(1, 1, {t[1]}));
  EXPECT_TRUE(rows[0][0]);
  EXPECT_TRUE(rows[0][1]);
  EXPECT_FALSE(rows[0][2]);
  rows = m::match_predictions({0}, {0}, iou(1, 1, {std::nextafter(t[1], 0.0f)}));
  EXPECT_TRUE(rows[0][0]);
  EXPECT_FALSE(rows[0][1]);
  // Through real boxes: half overlap is IoU 0.5, a TP at the first threshold only.
  m::DetectionStats stats(1);
  stats.add_image({pred(0, 0.9f, 0, 0, 10, 5)}, {label(0, 0, 0, 10, 10)});
  EXPECT_EQ(count_true(stats.tp()[0]), 1u);
  EXPECT_TRUE(stats.tp()[0][0]);
}

// A prediction of another class never matches, however well it overlaps.
TEST(Metrics, MatchNeedsSameClass) {
  const auto rows = m::match_predictions({1}, {0}, iou(1, 1, {1.0f}));
  EXPECT_EQ(count_true(rows[0]), 0u);
}

// One label, two predictions on it: one TP per threshold, never two.
TEST(Metrics, MatchOneLabelTwoPredictions) {
  const auto rows = m::match_predictions({0, 0}, {0}, iou(1, 2, {0.97f, 0.96f}));
  for (int t = 0; t < m::kIouThresholdCount; ++t) {
    EXPECT_EQ(rows[0][t] + rows[1][t], 1) << "threshold " << t;
  }
  // Here the first prediction also has the higher IoU; the next test separates the two.
  EXPECT_EQ(rows[0], all(true));
  EXPECT_EQ(rows[1], all(false));
}

// One prediction over two labels is one TP; the other label stays unmatched (recall 1/2).
TEST(Metrics, MatchOnePredictionTwoLabels) {
  m::DetectionStats stats(1);
  stats.add_image({pred(0, 0.9f, 0, 0, 10, 10)},
                  {label(0, 0, 0, 10, 10), label(0, 1, 0, 11, 10)});  // IoU 1 and 90/110
  ASSERT_EQ(stats.tp().size(), 1u);
  EXPECT_EQ(stats.tp()[0], all(true));
  const m::ApPerClass ap =
      m::ap_per_class(stats.tp(), stats.conf(), stats.pred_classes(), stats.target_classes());
  EXPECT_NEAR(ap.ap[0][0], 0.495, kTol);  // recall 1/2 at precision 1, see MissedObject
}

// Greedy in confidence order (the order given): the first prediction takes the label at every
// threshold its IoU reaches, even where a later one overlaps better; the later one gets the label
// only at the thresholds the first fell short of.
TEST(Metrics, MatchIsGreedyInConfidenceOrder) {
  const auto rows = m::match_predictions({0, 0}, {0}, iou(1, 2, {0.6f, 0.9f}));
  // Thresholds 0.5, 0.55, 0.6: both qualify and prediction 0 (IoU 0.6) takes the label.
  // 0.6f >= 0.6f holds at the third threshold.
  for (int t = 0; t < 3; ++t) {
    EXPECT_TRUE(rows[0][t]) << t;
    EXPECT_FALSE(rows[1][t]) << t;
  }
  // From 0.65 to 0.9 only prediction 1 qualifies; at 0.95 neither.
  for (int t = 3; t < 9; ++t) {
    EXPECT_FALSE(rows[0][t]) << t;
    EXPECT_TRUE(rows[1][t]) << t;
  }
  EXPECT_FALSE(rows[1][9]);
  // Two labels, one prediction: the prediction takes the label it overlaps best.
  const auto two = m::match_predictions({0}, {0, 0}, iou(2, 1, {0.6f, 0.9f}));
  EXPECT_EQ(count_true(two[0]), 9u);
}

TEST(Metrics, MatchRejectsWrongShapes) {
  EXPECT_THROW(m::match_predictions({0, 0}, {0}, iou(1, 1, {1.0f})), std::invalid_argument);
}

// compute_ap on curves whose 101-point trapezoid is known.
TEST(Metrics, ComputeApKnownCurves) {
  // Recall 1/2 then 1 at precision 1 then 1/2: the envelope is 1 on [0, 0.5], falls linearly to
  // 0.5 at 0.99... and to 0 at recall 1 (the sentinel, see the file comment):
  // 0.5 + 0.49 * (1 + 0.51) / 2 + 0.01 * 0.51 / 2 = 0.5 + 0.36995 + 0.00255 = 0.8725.
  m::ApCurve c = m::compute_ap({0.5, 1.0}, {1.0, 0.5});
  EXPECT_NEAR(c.ap, 0.8725, kTol);
  EXPECT_EQ(c.mrec, (std::vector<double>{0, 0.5, 1, 1, 1}));
  EXPECT_EQ(c.mpre, (std::vector<double>{1, 1, 0.5, 0, 0}));
  // The envelope lifts a dip: precision 0.5, 1, 0.6 -> 1, 1, 0.6 (running max from the right).
  c = m::compute_ap({0.25, 0.5, 0.75}, {0.5, 1.0, 0.6});
  EXPECT_EQ(c.mpre, (std::vector<double>{1, 1, 1, 0.6, 0, 0}));
  // 1 on [0, 0.5]; 1 -> 0.6 on [0.5, 0.75] (area 0.2); 0 from recall 0.75 on, where np.interp
  // takes the sentinel's 0, so the trapezoid from 0.74 to 0.75 loses half its 0.006.
  EXPECT_NEAR(c.ap, 0.5 + 0.2 - 0.003, kTol);
  // Perfect: 0.995.
  EXPECT_NEAR(m::compute_ap({1.0}, {1.0}).ap, kPerfectAp, kTol);
}

// smooth: nf = round(10 * 0.2 * 2) // 2 + 1 = 3 taps, one edge value padded on each side.
TEST(Metrics, SmoothBoxFilter) {
  const std::vector<double> y = {0, 0, 0, 3, 0, 0, 0, 0, 0, 6};
  const std::vector<double> expected = {0, 0, 1, 1, 1, 0, 0, 0, 2, 4};
  const std::vector<double> s = m::smooth(y, 0.2);
  ASSERT_EQ(s.size(), expected.size());
  for (std::size_t i = 0; i < s.size(); ++i) EXPECT_NEAR(s[i], expected[i], kTol) << i;
  // 1000 points, f = 0.1: 101 taps. A step at 500 is 51/101 there and 1 from 550.
  std::vector<double> step(1000, 0.0);
  for (int i = 500; i < 1000; ++i) step[i] = 1.0;
  const std::vector<double> s2 = m::smooth(step, 0.1);
  ASSERT_EQ(s2.size(), 1000u);
  EXPECT_NEAR(s2[500], 51.0 / 101.0, kTol);
  EXPECT_NEAR(s2[449], 0.0, kTol);
  EXPECT_NEAR(s2[450], 1.0 / 101.0, kTol);
  EXPECT_NEAR(s2[999], 1.0, kTol);
  // An even tap count makes NumPy's valid convolution one longer, as in Ultralytics.
  EXPECT_EQ(m::smooth(y, 0.1).size(), 11u);
}

// Every object found, nothing else: AP 0.995 at every threshold, P = R = 1.
TEST(Metrics, PerfectDetections) {
  m::DetectionStats stats(1);
  stats.add_image({pred(0, 0.9f, 0, 0, 10, 10), pred(0, 0.8f, 20, 20, 40, 40)},
                  {label(0, 0, 0, 10, 10), label(0, 20, 20, 40, 40)});
  stats.add_image({pred(0, 0.7f, 5, 5, 15, 15)}, {label(0, 5, 5, 15, 15)});
  const m::DetectionMetrics r = m::compute_detection_metrics(stats);
  ASSERT_EQ(r.per_class.classes, std::vector<int>{0});
  for (double a : r.per_class.ap[0]) EXPECT_NEAR(a, kPerfectAp, kTol);
  EXPECT_NEAR(r.map50, kPerfectAp, kTol);
  EXPECT_NEAR(r.map75, kPerfectAp, kTol);
  EXPECT_NEAR(r.map50_95, kPerfectAp, kTol);
  EXPECT_DOUBLE_EQ(r.mp, 1.0);
  EXPECT_DOUBLE_EQ(r.mr, 1.0);
  EXPECT_EQ(r.images, 2);
  EXPECT_EQ(r.instances(), 3);
}

// A false positive ranked above the only true positive: recall 0, 1 at precision 0, 1/2.
// Envelope: mrec [0, 0, 1, 1], mpre [1, 0.5, 0.5, 0]. np.interp at recall 0 takes the last of the
// two zeros (0.5), so the curve is 0.5 from 0 to 0.99 and 0 at 1:
// 0.99 * 0.5 + 0.01 * (0.5 + 0) / 2 = 0.495 + 0.0025 = 0.4975.
TEST(Metrics, FalsePositiveRankedFirst) {
  m::DetectionStats stats(1);
  stats.add_image({pred(0, 0.9f, 50, 50, 60, 60), pred(0, 0.8f, 0, 0, 10, 10)},
                  {label(0, 0, 0, 10, 10)});
  EXPECT_EQ(stats.tp()[0], all(false));
  EXPECT_EQ(stats.tp()[1], all(true));
  const m::DetectionMetrics r = m::compute_detection_metrics(stats);
  EXPECT_NEAR(r.map50, 0.4975, kTol);
  EXPECT_NEAR(r.map50_95, 0.4975, kTol);
  // Ranked the other way round the FP costs nothing: 0.995.
  m::DetectionStats swapped(1);
  swapped.add_image({pred(0, 0.7f, 50, 50, 60, 60), pred(0, 0.8f, 0, 0, 10, 10)},
                    {label(0, 0, 0, 10, 10)});
  EXPECT_NEAR(m::compute_detection_metrics(swapped).map50, kPerfectAp, kTol);
}

// Half the objects missed: recall 1/2 at precision 1. The curve is 1 up to recall 0.49 and 0 from
// 0.5 (the sentinel (0.5, 0)): 0.49 + 0.01 * 1 / 2 = 0.495.
TEST(Metrics, MissedObject) {
  m::DetectionStats stats(1);
  stats.add_image({pred(0, 0.9f, 0, 0, 10, 10)},
                  {label(0, 0, 0, 10, 10), label(0, 30, 30, 40, 40)});
  const m::DetectionMetrics r = m::compute_detection_metrics(stats);
  EXPECT_NEAR(r.map50, 0.495, kTol);
  EXPECT_DOUBLE_EQ(r.mr, 0.5);
  EXPECT_DOUBLE_EQ(r.mp, 1.0);
}

// mAP50-95 counts thresholds: IoU 0.725 is a TP at 0.5 ... 0.7 (5 of 10) and a FP above, so the
// AP row is five 0.995 and five 0: mAP50 0.995, mAP75 0, mAP50-95 0.4975.
TEST(Metrics, ApAcrossIouThresholds) {
  m::DetectionStats stats(1);
  stats.add_image({pred(0, 0.9f, 0, 0, 10, 7.25f)}, {label(0, 0, 0, 10, 10)});
  EXPECT_EQ(count_true(stats.tp()[0]), 5u);
  const m::DetectionMetrics r = m::compute_detection_metrics(stats);
  EXPECT_NEAR(r.map50, kPerfectAp, kTol);
  EXPECT_NEAR(r.map75, 0.0, kTol);
  EXPECT_NEAR(r.map50_95, kPerfectAp / 2, kTol);
  EXPECT_NEAR(r.fitness(), r.map50_95, kTol);  // weights [0, 0, 0, 1]
  EXPECT_EQ(m::kFitnessWeights, (std::array<double, 4>{0, 0, 0, 1}));
}

// Several classes: the mean over classes with labels. Class 2 has only predictions (excluded);
// class 3 has a label but no prediction (AP 0, included).
TEST(Metrics, MeanOverClassesWithLabels) {
  m::DetectionStats stats(4);
  stats.add_image(
      {pred(0, 0.9f, 0, 0, 10, 10), pred(1, 0.8f, 20, 20, 30, 30), pred(2, 0.95f, 60, 60, 70, 70)},
      {label(0, 0, 0, 10, 10), label(1, 20, 20, 30, 30), label(1, 40, 40, 50, 50)});
  m::DetectionMetrics r = m::compute_detection_metrics(stats);
  EXPECT_EQ(r.per_class.classes, (std::vector<int>{0, 1}));
  EXPECT_NEAR(r.per_class.ap[0][0], kPerfectAp, kTol);
  EXPECT_NEAR(r.per_class.ap[1][0], 0.495, kTol);
  EXPECT_NEAR(r.map50, (kPerfectAp + 0.495) / 2, kTol);
  // maps: per class id, the overall mAP50-95 where a class has no labels.
  const std::vector<double> maps = r.maps(4);
  EXPECT_NEAR(maps[0], kPerfectAp, kTol);
  EXPECT_NEAR(maps[1], 0.495, kTol);
  EXPECT_NEAR(maps[2], r.map50_95, kTol);
  EXPECT_NEAR(maps[3], r.map50_95, kTol);

  stats.add_image({}, {label(3, 0, 0, 10, 10)});
  r = m::compute_detection_metrics(stats);
  EXPECT_EQ(r.per_class.classes, (std::vector<int>{0, 1, 3}));
  EXPECT_NEAR(r.per_class.ap[2][0], 0.0, kTol);
  EXPECT_NEAR(r.map50, (kPerfectAp + 0.495 + 0.0) / 3, kTol);
  EXPECT_EQ(r.per_class.p_curve[2], std::vector<double>(m::kCurvePoints, 0.0));
}

// Instances per class and images containing each class (the table's Images column).
TEST(Metrics, StatsCounts) {
  m::DetectionStats stats(3);
  stats.add_image({}, {label(0, 0, 0, 1, 1), label(0, 2, 2, 3, 3), label(1, 0, 0, 1, 1)});
  stats.add_image({pred(2, 0.5f, 0, 0, 1, 1)}, {label(0, 0, 0, 1, 1)});
  stats.add_image({}, {});
  EXPECT_EQ(stats.images(), 3);
  EXPECT_EQ(stats.instances_per_class(), (std::vector<int>{3, 1, 0}));
  EXPECT_EQ(stats.images_per_class(), (std::vector<int>{2, 1, 0}));
  EXPECT_EQ(stats.tp().size(), 1u);
  EXPECT_EQ(stats.tp()[0], all(false));  // class 2 predicted where only class 0 is
  EXPECT_THROW(stats.add_image({}, {label(-1, 0, 0, 1, 1)}), std::invalid_argument);
  stats.clear();
  EXPECT_EQ(stats.images(), 0);
  EXPECT_TRUE(stats.conf().empty());
}

// The operating point. One label, a TP at conf 0.6 and an FP at 0.2: recall is 1 for
// confidence <= 0.6 and 0 above; precision falls linearly from 1 at 0.6 to 0.5 at 0.2. F1 rises
// up to x = 0.6 and drops to 0 after it (x[599] = 0.5996 is the last point below 0.6). The
// 101-point box filter peaks where its window ends at 599: index 549 (x = 549 / 999).
TEST(Metrics, PrecisionRecallAtMaxF1) {
  const float hi = 0.6f, lo = 0.2f;
  const m::ApPerClass ap = m::ap_per_class({all(true), all(false)}, {hi, lo}, {0, 0}, {0});
  EXPECT_EQ(ap.operating_index, 549u);
  const double x = 549.0 / 999.0;
  const double p = 0.5 + 0.5 * (x - lo) / (static_cast<double>(hi) - lo);
  EXPECT_NEAR(ap.p[0], p, 1e-9);
  EXPECT_DOUBLE_EQ(ap.r[0], 1.0);
  EXPECT_NEAR(ap.f1[0], 2 * p / (p + 1), 1e-9);
  // The curves at the ends: above every confidence P = 1 (left=1) and R = 0; below, the last
  // values.
  EXPECT_DOUBLE_EQ(ap.p_curve[0].back(), 1.0);
  EXPECT_DOUBLE_EQ(ap.r_curve[0].back(), 0.0);
  EXPECT_DOUBLE_EQ(ap.p_curve[0].front(), 0.5);
  EXPECT_DOUBLE_EQ(ap.r_curve[0].front(), 1.0);
}

TEST(Metrics, NoLabelsGiveZeros) {
  m::DetectionStats stats(2);
  stats.add_image({pred(0, 0.9f, 0, 0, 10, 10)}, {});
  const m::DetectionMetrics r = m::compute_detection_metrics(stats);
  EXPECT_TRUE(r.per_class.classes.empty());
  EXPECT_EQ(r.mp, 0.0);
  EXPECT_EQ(r.map50_95, 0.0);
  EXPECT_EQ(r.fitness(), 0.0);
}

// The confusion matrix: a correct match, a class confusion, an unmatched detection (background
// FP), a detection under the confidence threshold (its label becomes a background FN).
TEST(Metrics, ConfusionMatrixCounts) {
  m::ConfusionMatrix cm(2);
  cm.process_batch({pred(0, 0.9f, 0, 0, 10, 10),     // on the class-0 label: TP
                    pred(0, 0.8f, 20, 20, 30, 30),   // on a class-1 label: confusion
                    pred(1, 0.7f, 60, 60, 70, 70),   // on nothing: background FP
                    pred(1, 0.1f, 40, 40, 50, 50)},  // under conf 0.25: ignored
                   {label(0, 0, 0, 10, 10), label(1, 20, 20, 30, 30), label(1, 40, 40, 50, 50)});
  const std::vector<double> expected = {1, 1, 0,   // predicted 0
                                        0, 0, 1,   // predicted 1
                                        0, 1, 0};  // predicted background
  EXPECT_EQ(cm.matrix(), expected);
  EXPECT_EQ(cm.true_positives(), (std::vector<double>{1, 0}));
  EXPECT_EQ(cm.false_positives(), (std::vector<double>{1, 1}));

  // An image without labels: confident detections are background FPs.
  cm.process_batch({pred(1, 0.5f, 0, 0, 5, 5), pred(0, 0.2f, 0, 0, 5, 5)}, {});
  EXPECT_EQ(cm.at(1, 2), 2);
  EXPECT_EQ(cm.at(0, 2), 0);
  // An image without detections: every label is a background FN.
  cm.process_batch({}, {label(0, 0, 0, 5, 5)});
  EXPECT_EQ(cm.at(2, 0), 1);
  // Column normalisation.
  const std::vector<double> n = cm.normalized();
  EXPECT_NEAR(n[0 * 3 + 0], 1.0 / 2.0, 1e-9);  // column 0: TP 1, FN 1
  EXPECT_NEAR(n[2 * 3 + 0], 1.0 / 2.0, 1e-9);
  EXPECT_NEAR(n[1 * 3 + 1], 0.0, 1e-9);  // column 1: predicted 0 once, missed once
  EXPECT_NEAR(n[0 * 3 + 1], 1.0 / 2.0, 1e-9);
  EXPECT_NEAR(n[1 * 3 + 2], 1.0, 1e-9);  // column background: only class-1 false positives
}

// Two detections on one label: the best IoU takes it, the other is a background FP; IoU must be
// strictly above 0.45.
TEST(Metrics, ConfusionMatrixDedupeAndIou) {
  m::ConfusionMatrix cm(1);
  cm.process_batch({pred(0, 0.5f, 0, 0, 10, 8), pred(0, 0.9f, 0, 0, 10, 10)},
                   {label(0, 0, 0, 10, 10)});
  EXPECT_EQ(cm.at(0, 0), 1);
  EXPECT_EQ(cm.at(0, 1), 1);
  EXPECT_EQ(cm.at(1, 0), 0);
  m::ConfusionMatrix low(1);
  low.process_batch({pred(0, 0.9f, 0, 0, 10, 4)}, {label(0, 0, 0, 10, 10)});  // IoU 0.4
  EXPECT_EQ(low.at(0, 1), 1);                                                 // FP
  EXPECT_EQ(low.at(1, 0), 1);                                                 // FN
  EXPECT_THROW(low.process_batch({pred(3, 0.9f, 0, 0, 1, 1)}, {}), std::invalid_argument);
}

// 0.25 unless given; validation gives its own conf (0.001 by default), kept as it is (8.4.190).
TEST(Metrics, ConfusionMatrixConfRule) {
  EXPECT_EQ(m::ConfusionMatrix(3).conf_threshold(), 0.25);
  EXPECT_EQ(m::ConfusionMatrix(3, 0.001).conf_threshold(), 0.001);
  EXPECT_EQ(m::ConfusionMatrix(3, 0.4).conf_threshold(), 0.4);
  EXPECT_EQ(m::ConfusionMatrix(3).iou_threshold(), 0.45);
  EXPECT_THROW(m::ConfusionMatrix(0), std::invalid_argument);
}

// The printed table, character for character as Python's "%22s%11i%11i%11.3g..." prints it.
// cat: found (0.995); dog: one of three found (recall 1/3 at precision 1: 1 up to recall 0.33,
// 0 from 0.34: 0.33 + 0.01 / 2 = 0.335).
TEST(Metrics, ResultsTable) {
  m::DetectionStats stats(2);
  stats.add_image({pred(0, 0.9f, 0, 0, 10, 10)}, {label(0, 0, 0, 10, 10)});
  stats.add_image({pred(1, 0.8f, 0, 0, 10, 10)},
                  {label(1, 0, 0, 10, 10), label(1, 20, 20, 30, 30), label(1, 40, 40, 50, 50)});
  const m::DetectionMetrics r = m::compute_detection_metrics(stats);
  EXPECT_NEAR(r.per_class.ap[1][0], 0.335, 1e-9);
  const std::string expected =
      "                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95):\n"
      "                   all          2          4          1      0.667      0.665      0.665\n"
      "                   cat          1          1          1          1      0.995      0.995\n"
      "                   dog          1          3          1      0.333      0.335      0.335\n";
  EXPECT_EQ(m::format_metrics_table(r, {{0, "cat"}, {1, "dog"}}), expected);
  // One class, or per_class off: only the "all" row.
  const std::string header_and_all =
      expected.substr(0, expected.find('\n', expected.find("all")) + 1);
  EXPECT_EQ(m::format_metrics_table(r, {{0, "cat"}}, true), header_and_all);
  EXPECT_EQ(m::format_metrics_table(r, {{0, "cat"}, {1, "dog"}}, false),
            m::format_metrics_table(r, {{0, "cat"}}));
}

// The six plot files: PNG, decodable, the documented sizes, with the bold blue mean line and the
// darkest Blues cell present; nothing else left in the folder (atomic writes).
TEST(Metrics, PlotsWritten) {
  m::DetectionStats stats(3);
  m::ConfusionMatrix cm(3);
  const std::vector<m::Label> labels = {label(0, 0, 0, 10, 10), label(1, 20, 20, 30, 30),
                                        label(2, 40, 40, 50, 50)};
  const std::vector<m::Prediction> preds = {
      pred(0, 0.9f, 0, 0, 10, 10), pred(1, 0.6f, 20, 20, 30, 31), pred(1, 0.4f, 40, 40, 50, 50)};
  for (int i = 0; i < 3; ++i) {
    stats.add_image(preds, labels);
    cm.process_batch(preds, labels);
  }
  const m::DetectionMetrics r = m::compute_detection_metrics(stats);
  const std::map<int, std::string> names = {{0, "person"}, {1, "car"}, {2, "traffic light"}};
  yolo::testing::TempDir dir("metrics_plots");
  auto paths = yolo::save_metric_curve_plots(dir.path, r.per_class, names);
  const auto cm_paths = yolo::save_confusion_matrix_plots(dir.path, cm, names);
  paths.insert(paths.end(), cm_paths.begin(), cm_paths.end());
  const std::vector<std::string> expected = {
      "BoxPR_curve.png", "BoxF1_curve.png",      "BoxP_curve.png",
      "BoxR_curve.png",  "confusion_matrix.png", "confusion_matrix_normalized.png"};
  ASSERT_EQ(paths.size(), expected.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    EXPECT_EQ(paths[i].filename(), expected[i]);
    EXPECT_EQ(yolo::testing::read_file(paths[i]).substr(1, 3), "PNG") << paths[i];
    const cv::Mat img = cv::imread(paths[i].string());
    ASSERT_FALSE(img.empty()) << paths[i];
    const bool curve = i < 4;
    EXPECT_EQ(img.cols, curve ? yolo::kCurvePlotWidth : yolo::kConfusionPlotWidth) << paths[i];
    EXPECT_EQ(img.rows, curve ? yolo::kCurvePlotHeight : yolo::kConfusionPlotHeight) << paths[i];
    // The mean line is pure blue (BGR 255, 0, 0); the matrix's largest value the darkest blue.
    const cv::Scalar marker = curve ? cv::Scalar(255, 0, 0) : cv::Scalar(107, 48, 8);
    cv::Mat hits;
    cv::inRange(img, marker, marker, hits);
    EXPECT_GT(cv::countNonZero(hits), 100) << paths[i];
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator{}), 6);
}

// Many classes: grey per-class lines without legend entries, and a matrix without cell text;
// both still render at full size.
TEST(Metrics, PlotsWithManyClasses) {
  constexpr int kClasses = 120;
  m::DetectionStats stats(kClasses);
  m::ConfusionMatrix cm(kClasses);
  std::vector<m::Label> labels;
  std::vector<m::Prediction> preds;
  for (int c = 0; c < kClasses; ++c) {
    const float x = static_cast<float>(c * 20);
    labels.push_back(label(c, x, 0, x + 10, 10));
    preds.push_back(pred(c, 0.3f + 0.005f * static_cast<float>(c), x, 0, x + 10, 10));
  }
  stats.add_image(preds, labels);
  cm.process_batch(preds, labels);
  const m::DetectionMetrics r = m::compute_detection_metrics(stats);
  const cv::Mat pr = yolo::plot_pr_curve(r.per_class, {});
  EXPECT_EQ(pr.size(), cv::Size(yolo::kCurvePlotWidth, yolo::kCurvePlotHeight));
  const cv::Mat matrix = yolo::plot_confusion_matrix(cm, {}, true);
  EXPECT_EQ(matrix.size(), cv::Size(yolo::kConfusionPlotWidth, yolo::kConfusionPlotHeight));
}
