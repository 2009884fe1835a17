// The task-aligned assigner, DFL and the detection losses on hand-built cases, and a few
// optimisation steps on a tiny batch (the loss must go down) for YOLOv8 and YOLO26, and the whole
// loss against an independent Python reference (loss_reference.py, run with python3-torch).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <torch/serialize.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "yolo/models/detection_model.h"
#include "yolo/models/geometry/box_tensors.h"
#include "yolo/trainer/train/assigner.h"
#include "yolo/trainer/train/loss.h"
#include "yolo/trainer/train/optimizer.h"

namespace {

torch::Tensor t(std::vector<float> v, std::vector<int64_t> shape) {
  return torch::tensor(v).view(shape);
}

}  // namespace

TEST(Dfl, TargetsClampedBelowLastBin) {
  // Target 15.5 with 16 bins is clamped to 14.99: 1% weight on bin 14, 99% on bin 15.
  auto logits = torch::zeros({1, 16});
  logits[0][15] = 5.0;
  auto loss = yolo::distribution_focal_loss(logits, torch::tensor({15.5f}), 16);
  auto logp = torch::log_softmax(logits, 1);
  const double expected = -0.01 * logp[0][14].item<double>() - 0.99 * logp[0][15].item<double>();
  EXPECT_NEAR(loss.item<double>(), expected, 1e-4);
  // Negative targets clamp to 0: all weight on bin 0.
  auto at0 = yolo::distribution_focal_loss(logits, torch::tensor({-3.0f}), 16);
  EXPECT_NEAR(at0.item<double>(), -logp[0][0].item<double>(), 1e-4);
  // Distances from anchors are clamped to reg_max - 1 - 0.01.
  auto d = yolo::box_to_distances(t({5, 5}, {1, 2}), t({-30, 4, 6, 40}, {1, 4}), 15);
  EXPECT_NEAR(d[0][0].item<double>(), 14.99, 1e-5);
  EXPECT_NEAR(d[0][1].item<double>(), 1.0, 1e-5);
  EXPECT_NEAR(d[0][3].item<double>(), 14.99, 1e-5);
  auto unclamped = yolo::box_to_distances(t({5, 5}, {1, 2}), t({-30, 4, 6, 40}, {1, 4}), 0);
  EXPECT_NEAR(unclamped[0][0].item<double>(), 35.0, 1e-5);
}

TEST(Assigner, PicksBestAlignedAnchorsInsideTheBox) {
  // Four anchors; the box [5, 5, 35, 35] (class 1) contains the first three.
  auto anchors = t({10, 10, 20, 20, 30, 30, 100, 100}, {4, 2});
  auto pred_boxes = t({5, 5, 35, 35,        // exact
                       10, 10, 30, 30,      // same centre and aspect: CIoU = IoU = 4/9
                       200, 200, 210, 210,  // far away: IoU 0
                       5, 5, 35, 35},       // exact, but its anchor is outside the box
                      {1, 4, 4});
  auto scores = torch::zeros({1, 4, 2});
  scores[0][0][1] = 0.9, scores[0][1][1] = 0.5, scores[0][2][1] = 0.9, scores[0][3][1] = 0.9;
  auto gt_labels = t({1}, {1, 1, 1}), gt_boxes = t({5, 5, 35, 35}, {1, 1, 4});
  auto gt_mask = t({1}, {1, 1, 1});
  yolo::TaskAlignedAssigner assigner({2, 2, 2, 0.5, 6.0, 1e-9, {}});
  auto a = assigner.assign(scores, pred_boxes, anchors, gt_labels, gt_boxes, gt_mask);
  EXPECT_TRUE(a.fg_mask[0][0].item<bool>());
  EXPECT_TRUE(a.fg_mask[0][1].item<bool>());
  EXPECT_FALSE(a.fg_mask[0][2].item<bool>());  // inside, but outside the top 2
  EXPECT_FALSE(a.fg_mask[0][3].item<bool>());  // outside the box
  EXPECT_EQ(a.labels[0][0].item<int64_t>(), 1);
  // Soft targets: align / best align * best IoU, on the box's class only.
  const double align0 = std::sqrt(0.9) * 1.0;
  const double align1 = std::sqrt(0.5) * std::pow(4.0 / 9.0, 6);
  EXPECT_NEAR(a.scores[0][0][1].item<double>(), 1.0, 1e-4);
  EXPECT_NEAR(a.scores[0][1][1].item<double>(), align1 / align0, 1e-5);
  EXPECT_EQ(a.scores[0][0][0].item<double>(), 0.0);
  EXPECT_EQ(a.scores[0][2].sum().item<double>(), 0.0);
  EXPECT_TRUE(torch::equal(a.boxes[0][1], gt_boxes[0][0]));
}

TEST(Assigner, ConflictGoesToHigherIouAndTopk2KeepsOne) {
  // Anchor 0 at (20, 20) is inside both boxes; its prediction overlaps box B more.
  auto anchors = t({20, 20, 12, 12, 28, 28}, {3, 2});
  auto pred_boxes = t({14, 14, 30, 30, 5, 5, 25, 25, 16, 16, 34, 34}, {1, 3, 4});
  auto scores = torch::full({1, 3, 1}, 0.8);
  auto gt_boxes = t({0, 0, 25, 25, 14, 14, 32, 32}, {1, 2, 4});
  auto gt_labels = torch::zeros({1, 2, 1}), gt_mask = torch::ones({1, 2, 1});
  yolo::TaskAlignedAssigner assigner({3, 3, 1, 0.5, 6.0, 1e-9, {}});
  auto a = assigner.assign(scores, pred_boxes, anchors, gt_labels, gt_boxes, gt_mask);
  auto iou_a = yolo::boxes::ciou(gt_boxes[0][0], pred_boxes[0][0]).item<double>();
  auto iou_b = yolo::boxes::ciou(gt_boxes[0][1], pred_boxes[0][0]).item<double>();
  ASSERT_GT(iou_b, iou_a);
  EXPECT_EQ(a.gt_index[0][0].item<int64_t>(), 1);
  // topk2 = 1: every box keeps exactly one anchor.
  yolo::TaskAlignedAssigner one({3, 1, 1, 0.5, 6.0, 1e-9, {}});
  auto o = one.assign(scores, pred_boxes, anchors, gt_labels, gt_boxes, gt_mask);
  for (int64_t box = 0; box < 2; ++box)
    EXPECT_EQ((o.fg_mask[0].logical_and(o.gt_index[0] == box)).sum().item<int64_t>(), 1);
}

TEST(Assigner, SmallBoxesWidenedToSecondStride) {
  // A 4x4 box centred at (12, 12); the anchor at (17, 12) is outside it but inside the box
  // widened to 16 px (Ultralytics 8.4.190: every side under the second stride is widened to it).
  auto anchors = t({17, 12, 12, 12, 30, 12}, {3, 2});
  auto box = t({10, 10, 14, 14}, {1, 1, 4});
  auto mask = torch::ones({1, 1, 1});
  yolo::TaskAlignedAssigner with_rule({10, 10, 1, 0.5, 6.0, 1e-9, {8, 16, 32}});
  yolo::TaskAlignedAssigner without({10, 10, 1, 0.5, 6.0, 1e-9, {}});
  auto in = with_rule.candidates_in_boxes(anchors, box, mask);
  EXPECT_EQ(in[0][0][0].item<float>(), 1);
  EXPECT_EQ(in[0][0][1].item<float>(), 1);
  EXPECT_EQ(in[0][0][2].item<float>(), 0);
  EXPECT_EQ(without.candidates_in_boxes(anchors, box, mask)[0][0][0].item<float>(), 0);
  // A 12-px side is above the smallest stride but under the second: widened too (an earlier
  // reading widened only sides under 8 px; the parity test on a loader batch caught it).
  auto mid = t({6, 6, 18, 18}, {1, 1, 4});  // 12x12 about (12, 12): (19, 12) only when widened
  auto mid_anchor = t({19, 12}, {1, 2});
  EXPECT_EQ(with_rule.candidates_in_boxes(mid_anchor, mid, mask)[0][0][0].item<float>(), 1);
  EXPECT_EQ(without.candidates_in_boxes(mid_anchor, mid, mask)[0][0][0].item<float>(), 0);
}

TEST(Assigner, NoBoxesMeansAllBackground) {
  yolo::TaskAlignedAssigner assigner({10, 10, 3, 0.5, 6.0, 1e-9, {}});
  auto a =
      assigner.assign(torch::rand({2, 5, 3}), torch::rand({2, 5, 4}), torch::rand({5, 2}),
                      torch::zeros({2, 0, 1}), torch::zeros({2, 0, 4}), torch::zeros({2, 0, 1}));
  EXPECT_FALSE(a.fg_mask.any().item<bool>());
  EXPECT_EQ(a.scores.sum().item<double>(), 0);
}

namespace {

// Two 64x64 images with three boxes: enough for the loss to have something to fit.
torch::Tensor tiny_targets() {
  return t({0, 0, 0.30f, 0.30f, 0.25f, 0.30f,  //
            0, 1, 0.70f, 0.65f, 0.35f, 0.30f,  //
            1, 0, 0.50f, 0.50f, 0.50f, 0.40f},
           {3, 6});
}

// Runs 30 AdamW steps on a fixed batch and returns the mean loss of the first and the last five.
// Early steps are noisy (the assignment changes as predictions move), hence the means.
std::pair<double, double> fit_tiny(const std::string& yaml) {
  torch::manual_seed(0);
  auto model = yolo::build_model(yaml, 2);
  model->train();
  auto& det = model->detect();
  auto images = torch::rand({2, 3, 64, 64});
  auto targets = tiny_targets();
  yolo::Optimizer opt(yolo::OptimizerKind::kAdamW,
                      yolo::make_param_groups(*model, yolo::OptimizerKind::kAdamW, 0.002, 0.9, 0));
  const yolo::LossGains gains;
  yolo::DetectionLoss v8_loss(2, det.reg_max, det.stride, gains);
  yolo::EndToEndLoss e2e_loss(2, det.reg_max, det.stride, gains, 10);
  const int steps = 30, window = 5;
  double first = 0, last = 0;
  for (int step = 0; step < steps; ++step) {
    auto out = model->forward_train(images);
    auto [anchors, strides] = det.anchors_for(out.one2many.feats);
    auto loss = det.end2end ? e2e_loss(out, anchors, strides, targets)
                            : v8_loss(out.one2many, anchors, strides, targets);
    EXPECT_TRUE(std::isfinite(loss.total.item<double>()));
    EXPECT_EQ(loss.items.sizes(), (std::vector<int64_t>{3}));
    if (step < window) first += loss.total.item<double>() / window;
    if (step >= steps - window) last += loss.total.item<double>() / window;
    opt.zero_grad();
    loss.total.backward();
    opt.step();
  }
  return {first, last};
}

}  // namespace

TEST(DetectionLoss, DecreasesOnATinyBatchYolov8) {
  auto [first, last] = fit_tiny("yolov8n.yaml");
  EXPECT_LT(last, first * 0.75) << "first " << first << " last " << last;
}

TEST(DetectionLoss, DecreasesOnATinyBatchYolo26) {
  auto [first, last] = fit_tiny("yolo26n.yaml");
  EXPECT_LT(last, first * 0.75) << "first " << first << " last " << last;
}

TEST(DetectionLoss, ItemsAreScaledByGainsAndBatch) {
  torch::manual_seed(1);
  auto model = yolo::build_model("yolov8n.yaml", 2);
  model->train();
  auto out = model->forward_train(torch::rand({2, 3, 64, 64}));
  auto [anchors, strides] = model->detect().anchors_for(out.one2many.feats);
  yolo::DetectionLoss base(2, 16, model->detect().stride, {1, 1, 1});
  yolo::DetectionLoss scaled(2, 16, model->detect().stride, {7.5, 0.5, 1.5});
  auto a = base(out.one2many, anchors, strides, tiny_targets());
  auto b = scaled(out.one2many, anchors, strides, tiny_targets());
  EXPECT_NEAR(b.items[0].item<double>(), 7.5 * a.items[0].item<double>(), 1e-4);
  EXPECT_NEAR(b.items[1].item<double>(), 0.5 * a.items[1].item<double>(), 1e-4);
  EXPECT_NEAR(b.items[2].item<double>(), 1.5 * a.items[2].item<double>(), 1e-4);
  EXPECT_NEAR(b.total.item<double>(), 2 * b.items.sum().item<double>(), 1e-3);
  // No labels: only the classification term remains.
  auto empty = scaled(out.one2many, anchors, strides, torch::zeros({0, 6}));
  EXPECT_EQ(empty.items[0].item<double>(), 0);
  EXPECT_GT(empty.items[1].item<double>(), 0);
}

TEST(EndToEndLoss, WeightsMoveLinearlyOverEpochs) {
  yolo::EndToEndLoss loss(2, 1, {8, 16, 32}, {}, 8);
  EXPECT_NEAR(loss.one2many_weight(), 0.8, 1e-9);
  loss.update();  // 1 of 7 steps
  EXPECT_NEAR(loss.one2many_weight(), 0.1 + 0.7 * 6.0 / 7.0, 1e-9);
  loss.set_updates(7);
  EXPECT_NEAR(loss.one2many_weight(), 0.1, 1e-9);
  EXPECT_NEAR(loss.one2one_weight(), 0.9, 1e-9);
  loss.update();
  EXPECT_NEAR(loss.one2many_weight(), 0.1, 1e-9);
}

// The whole loss against an independent Python reference of Ultralytics' (loss_reference.py,
// written per box with loops from the facts sheet): same inputs, same loss items and the same
// gradients for the box and class logits. Non-square input, a box under the smallest stride,
// overlapping boxes (anchor conflicts) and an image without boxes.
TEST(DetectionLoss, MatchesPythonReference) {
  // The project venv's Python (torch wheel, tools/install-deps.sh) runs the reference.
  const std::string python = YOLO_TEST_PYTHON;
  if (std::system((python + " -c 'import torch' >/dev/null 2>&1").c_str()) != 0)
    GTEST_SKIP() << python << " has no torch (run tools/install-deps.sh); skipping the reference";
  for (int topk2 : {10, 1}) {  // the one-to-many loss and the one-to-one (YOLO26) variant
    torch::manual_seed(3);
    const int64_t bs = 3, nc = 3, reg_max = 16;
    auto model = yolo::build_model("yolov8n.yaml", static_cast<int>(nc));
    auto& det = model->detect();
    const std::vector<torch::Tensor> feats = {torch::zeros({bs, 1, 12, 16}),
                                              torch::zeros({bs, 1, 6, 8}),
                                              torch::zeros({bs, 1, 3, 4})};  // 96 x 128 input
    auto [anchors, strides] = det.anchors_for(feats);
    const int64_t na = anchors.size(1);
    yolo::nn::HeadOutput head;
    // Logits around 0: expected distances near the middle of the DFL range, scores near 0.5, so
    // that predicted boxes overlap the targets and the alignment metric has no ties at zero.
    head.boxes = (torch::randn({bs, 4 * reg_max, na}) * 0.5).requires_grad_();
    head.scores = torch::randn({bs, nc, na}).requires_grad_();
    head.feats = feats;
    const torch::Tensor targets = t({0, 0, 0.30f, 0.40f, 0.30f, 0.45f,  //
                                     0, 1, 0.40f, 0.45f, 0.25f, 0.35f,  // overlaps the first
                                     0, 2, 0.80f, 0.20f, 0.05f, 0.06f,  // 6 x 6 px: widened
                                     1, 2, 0.55f, 0.50f, 0.60f, 0.50f,  //
                                     1, 0, 0.15f, 0.85f, 0.20f, 0.25f},
                                    {5, 6});
    yolo::DetectionLoss loss_fn(nc, reg_max, det.stride, yolo::LossGains{}, 10, topk2);
    auto loss = loss_fn(head, anchors, strides, targets);
    loss.total.backward();

    c10::Dict<std::string, torch::Tensor> dict;
    dict.insert("pred_dist", head.boxes.detach().permute({0, 2, 1}).contiguous());
    dict.insert("pred_scores", head.scores.detach().permute({0, 2, 1}).contiguous());
    dict.insert("anchors", anchors.t().contiguous());
    dict.insert("strides", strides.t().contiguous());
    dict.insert("targets", targets);
    dict.insert("imgsz", torch::tensor({96.0f, 128.0f}));
    dict.insert("settings", torch::tensor({nc, reg_max, int64_t{10}, int64_t{topk2}}));
    dict.insert("items", loss.items);
    dict.insert("total", loss.total.detach());
    dict.insert("grad_dist", head.boxes.grad().permute({0, 2, 1}).contiguous());
    dict.insert("grad_scores", head.scores.grad().permute({0, 2, 1}).contiguous());
    const std::filesystem::path dir = std::filesystem::temp_directory_path();
    const auto path = dir / ("yolo_loss_case_" + std::to_string(topk2) + ".pt");
    const std::vector<char> bytes = torch::pickle_save(c10::IValue(dict));
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<long>(bytes.size()));

    const std::string cmd = python + " " + YOLO_LOSS_REFERENCE + " " + path.string() + " 2>&1";
    std::string output;
    FILE* pipe = popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    char buf[512];
    while (fgets(buf, sizeof buf, pipe)) output += buf;
    const int status = pclose(pipe);
    std::printf("topk2=%d: %s", topk2, output.c_str());  // the differences, also on success
    EXPECT_EQ(status, 0) << "topk2=" << topk2 << ", C++ items " << loss.items << " total "
                         << loss.total.item<double>() << "\n"
                         << output;
    std::filesystem::remove(path);
  }
}
