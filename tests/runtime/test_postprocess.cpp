// Postprocessing: NMS against a straightforward reference on random boxes, Ultralytics'
// semantics on fixed tensors (strict thresholds, class offsets, multi-label, class filter,
// max_det), end-to-end filtering, and mapping back to non-square source frames.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <set>

#include "yolo/runtime/postprocess.h"

namespace {

// Reference: the full IoU matrix, then greedy in score order.
std::set<int64_t> reference_nms(const torch::Tensor& boxes, const torch::Tensor& scores,
                                float thr) {
  const int64_t n = boxes.size(0);
  auto x1 = boxes.select(1, 0), y1 = boxes.select(1, 1), x2 = boxes.select(1, 2),
       y2 = boxes.select(1, 3);
  auto area = (x2 - x1).clamp_min(0) * (y2 - y1).clamp_min(0);
  auto iw =
      (torch::min(x2.unsqueeze(1), x2.unsqueeze(0)) - torch::max(x1.unsqueeze(1), x1.unsqueeze(0)))
          .clamp_min(0);
  auto ih =
      (torch::min(y2.unsqueeze(1), y2.unsqueeze(0)) - torch::max(y1.unsqueeze(1), y1.unsqueeze(0)))
          .clamp_min(0);
  auto inter = iw * ih;
  auto iou = inter / (area.unsqueeze(1) + area.unsqueeze(0) - inter);
  auto order = std::get<1>(scores.sort(0, true));
  std::vector<bool> removed(n, false);
  std::set<int64_t> keep;
  for (int64_t k = 0; k < n; ++k) {
    int64_t i = order[k].item<int64_t>();
    if (removed[i]) continue;
    keep.insert(i);
    for (int64_t j = 0; j < n; ++j) {
      if (j != i && iou[i][j].item<float>() > thr) removed[j] = true;
    }
  }
  return keep;
}

torch::Tensor random_boxes(int64_t n, float size) {
  auto xy = torch::rand({n, 2}) * size;
  auto wh = torch::rand({n, 2}) * size / 4 + 1;
  return torch::cat({xy, xy + wh}, 1);
}

// One image, Ultralytics layout (1, 4+nc, A) from rows of cx, cy, w, h, scores...
torch::Tensor raw_output(const std::vector<std::vector<float>>& rows) {
  const int64_t a = static_cast<int64_t>(rows.size()), c = static_cast<int64_t>(rows[0].size());
  torch::Tensor t = torch::zeros({a, c});
  for (int64_t i = 0; i < a; ++i) {
    for (int64_t j = 0; j < c; ++j) t[i][j] = rows[i][j];
  }
  return t.transpose(0, 1).unsqueeze(0).contiguous();
}

}  // namespace

TEST(Nms, MatchesReferenceOnRandomBoxes) {
  torch::manual_seed(0);
  for (int trial = 0; trial < 20; ++trial) {
    auto boxes = random_boxes(200, 100);
    auto scores = torch::rand({200});
    for (float thr : {0.3f, 0.5f, 0.7f}) {
      auto kept = yolo::nms_indices(boxes, scores, thr);
      std::set<int64_t> got;
      for (int64_t i = 0; i < kept.size(0); ++i) got.insert(kept[i].item<int64_t>());
      EXPECT_EQ(got, reference_nms(boxes, scores, thr)) << "trial " << trial << " iou " << thr;
      // Kept boxes come out by descending score.
      auto s = scores.index({kept});
      EXPECT_TRUE(torch::all(s.slice(0, 0, -1) >= s.slice(0, 1)).item<bool>());
    }
  }
  EXPECT_EQ(yolo::nms_indices(torch::zeros({0, 4}), torch::zeros({0}), 0.5).size(0), 0);
}

TEST(Nms, UltralyticsSemanticsOnFixedOutput) {
  // Three classes. Box A (class 0, 0.9) and B (class 0, 0.8) overlap heavily; C overlaps A but is
  // class 1; D scores exactly the threshold (dropped: strict >); E is class 2 at 0.5.
  torch::Tensor pred = raw_output({
      {50, 50, 20, 20, 0.9f, 0.1f, 0.0f},    // A
      {51, 51, 20, 20, 0.8f, 0.0f, 0.0f},    // B: suppressed by A
      {50, 50, 20, 20, 0.0f, 0.7f, 0.0f},    // C: other class, kept
      {150, 150, 10, 10, 0.25f, 0.f, 0.f},   // D: conf == 0.25 -> dropped
      {200, 100, 30, 10, 0.0f, 0.0f, 0.5f},  // E
  });
  yolo::NmsOptions o;
  o.conf = 0.25f;
  o.iou = 0.7f;
  auto out = yolo::non_max_suppression(pred, o, false);
  ASSERT_EQ(out.size(), 1u);
  auto d = out[0];
  ASSERT_EQ(d.size(0), 3);
  EXPECT_EQ(d.size(1), 6);
  EXPECT_FLOAT_EQ(d[0][4].item<float>(), 0.9f);  // sorted by confidence
  EXPECT_FLOAT_EQ(d[0][0].item<float>(), 40);    // xywh -> xyxy
  EXPECT_FLOAT_EQ(d[0][3].item<float>(), 60);
  EXPECT_FLOAT_EQ(d[1][5].item<float>(), 1);  // C
  EXPECT_FLOAT_EQ(d[2][5].item<float>(), 2);  // E
  // Agnostic: C is suppressed by A.
  o.agnostic = true;
  EXPECT_EQ(yolo::non_max_suppression(pred, o, false)[0].size(0), 2);
  o.agnostic = false;
  // Multi-label: A also yields a class-1 row (0.1 > conf 0.05), which survives because of the
  // class offset... but C (class 1, 0.7, same box) suppresses it.
  o.conf = 0.05f;
  o.multi_label = true;
  auto m = yolo::non_max_suppression(pred, o, false)[0];
  EXPECT_EQ(m.size(0), 4);  // A, C, E, D(0.25 > 0.05)
  // Class filter and max_det.
  o.classes = {2};
  auto only2 = yolo::non_max_suppression(pred, o, false)[0];
  ASSERT_EQ(only2.size(0), 1);
  EXPECT_FLOAT_EQ(only2[0][5].item<float>(), 2);
  o.classes.clear();
  o.max_det = 2;
  EXPECT_EQ(yolo::non_max_suppression(pred, o, false)[0].size(0), 2);
}

TEST(Nms, EndToEndOnlyFilters) {
  // The second row overlaps the first: end-to-end outputs get no IoU step.
  torch::Tensor e2e = torch::tensor({10.f, 10.f, 20.f, 20.f, 0.9f, 3.f,  //
                                     12.f, 12.f, 22.f, 22.f, 0.8f, 3.f,  //
                                     0.f, 0.f, 5.f, 5.f, 0.2f, 1.f})
                          .view({1, 3, 6});
  yolo::NmsOptions o;
  auto d = yolo::non_max_suppression(e2e, o, true)[0];
  EXPECT_EQ(d.size(0), 2);
  o.classes = {1};
  o.conf = 0.1f;
  d = yolo::non_max_suppression(e2e, o, true)[0];
  ASSERT_EQ(d.size(0), 1);
  EXPECT_FLOAT_EQ(d[0][5].item<float>(), 1);
  EXPECT_THROW(yolo::non_max_suppression(torch::zeros({1, 4, 5}), o, true), std::invalid_argument);
}

TEST(Nms, BatchedImagesAreIndependent) {
  torch::Tensor a = raw_output({{50, 50, 20, 20, 0.9f}, {300, 300, 20, 20, 0.1f}});
  torch::Tensor b = raw_output({{50, 50, 20, 20, 0.1f}, {300, 300, 20, 20, 0.8f}});
  auto out = yolo::non_max_suppression(torch::cat({a, b}), yolo::NmsOptions{}, false);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FLOAT_EQ(out[0][0][0].item<float>(), 40);
  EXPECT_FLOAT_EQ(out[1][0][0].item<float>(), 290);
}

TEST(Postprocess, BackToNonSquareSource) {
  // A 1280x720 frame letterboxed to 640x640: gain 0.5, pad top 140.
  auto t = yolo::compute_letterbox(720, 1280, yolo::LetterboxOptions{});
  ASSERT_EQ(t.pad_top, 140);
  torch::Tensor d = torch::tensor({100.f, 190.f, 300.f, 290.f, 0.9f, 0.f,  //
                                   -10.f, 130.f, 700.f, 800.f, 0.5f, 1.f})
                        .view({2, 6});
  yolo::detections_to_source(d, t);
  EXPECT_FLOAT_EQ(d[0][0].item<float>(), 200);
  EXPECT_FLOAT_EQ(d[0][1].item<float>(), 100);
  EXPECT_FLOAT_EQ(d[0][2].item<float>(), 600);
  EXPECT_FLOAT_EQ(d[0][3].item<float>(), 300);
  EXPECT_FLOAT_EQ(d[1][0].item<float>(), 0);  // clipped
  EXPECT_FLOAT_EQ(d[1][1].item<float>(), 0);
  EXPECT_FLOAT_EQ(d[1][2].item<float>(), 1280);
  EXPECT_FLOAT_EQ(d[1][3].item<float>(), 720);
  EXPECT_FLOAT_EQ(d[1][4].item<float>(), 0.5f);  // confidence untouched
}

TEST(Nms, PerClassEqualsUltralyticsClassOffsets) {
  // Ultralytics shifts each class's boxes by class * 7680 and runs one NMS; the runtime runs NMS
  // per class. Same kept set on random multi-class outputs.
  torch::manual_seed(2);
  const int64_t anchors = 300, nc = 5;
  torch::Tensor xy = torch::rand({anchors, 2}) * 200, wh = torch::rand({anchors, 2}) * 60 + 2;
  torch::Tensor scores = torch::rand({anchors, nc});
  torch::Tensor pred = torch::cat({xy, wh, scores}, 1).transpose(0, 1).unsqueeze(0).contiguous();
  yolo::NmsOptions o;
  o.conf = 0.5f;
  o.iou = 0.5f;
  o.max_det = 1000;
  auto got = yolo::non_max_suppression(pred, o, false)[0];

  auto [conf, cls] = scores.max(1);
  torch::Tensor keep_rows = (conf > o.conf).nonzero().view(-1);
  torch::Tensor boxes = torch::cat({xy - wh / 2, xy + wh / 2}, 1).index({keep_rows});
  torch::Tensor c = cls.index({keep_rows}).to(torch::kFloat);
  auto ref = reference_nms(boxes + c.unsqueeze(1) * 7680.f, conf.index({keep_rows}), o.iou);
  ASSERT_EQ(got.size(0), static_cast<int64_t>(ref.size()));
  std::multiset<float> got_conf, ref_conf;
  for (int64_t i = 0; i < got.size(0); ++i) got_conf.insert(got[i][4].item<float>());
  for (int64_t r : ref) ref_conf.insert(conf.index({keep_rows})[r].item<float>());
  EXPECT_EQ(got_conf, ref_conf);
}
