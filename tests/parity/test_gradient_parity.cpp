// Parity with Ultralytics run as an oracle (label `parity`; skipped without the ultralytics
// package in the test Python: tools/install-deps.sh --oracle).
//
// The loss and its gradients: the same weights (our model's, loaded into Ultralytics' by their
// common state-dict names), the same batch and targets, for yolov8n, yolo11n and yolo26n (whose
// loss has the one-to-many and one-to-one branches), on a small fixed batch and on a batch as the
// loader makes it (many boxes, a background image). The total loss and every parameter's
// gradient must agree to a relative 1e-4 (of the largest gradient of that parameter, or 1e-3 of
// the model's largest for gradients that are zero up to rounding); the first parameter that
// differs is named.
//
// The same under FP16 autocast on the CPU (#55: LibTorch's CPU autocast takes FP16, so what a
// GPU's AMP step computes can be compared here): both tools' forward pass runs under
// torch.autocast("cpu", float16); Ultralytics computes its loss under autocast too, ours in FP32
// from the head's outputs (outputs_in_fp32, as our trainer does). FP16 moves the loss and the
// gradients away from FP32 (at initialisation by 8-18 % of the gradient's norm in both tools),
// and each tool differently, so each tool's FP16 loss terms and gradients are held to our FP32
// ones on the same weights (which equal Ultralytics' FP32 ones, the cases above): ours must be no
// further from them than kFp16ErrorRatio times Ultralytics' distance.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "oracle.h"
#include "test_files.h"
#include "yolo/core/autocast_scope.h"
#include "yolo/models/detection_model.h"
#include "yolo/synth/synthetic_data.h"
#include "yolo/trainer/data/data_loader.h"
#include "yolo/trainer/data/dataset.h"
#include "yolo/trainer/train/loss.h"
#include "yolo/trainer/train/optimizer.h"

namespace fs = std::filesystem;

namespace {

// Two 64x96 images, five boxes of three classes (image, class, cx, cy, w, h; normalised), with
// overlapping boxes and one box small enough for the finest level only.
torch::Tensor targets() {
  return torch::tensor({0.f, 0.f, 0.30f, 0.30f, 0.25f, 0.30f,  //
                        0.f, 1.f, 0.70f, 0.65f, 0.35f, 0.30f,  //
                        0.f, 2.f, 0.68f, 0.60f, 0.30f, 0.35f,  //
                        1.f, 0.f, 0.50f, 0.50f, 0.50f, 0.40f,  //
                        1.f, 2.f, 0.15f, 0.80f, 0.08f, 0.10f})
      .view({5, 6});
}

// A training batch as the loader makes it: 8 mosaic images of 128 px from a synthetic set, many
// boxes of all sizes, and the last image's boxes dropped so that the batch holds a background
// image (which the assigner must handle without targets).
std::pair<torch::Tensor, torch::Tensor> loader_batch(const fs::path& dir) {
  yolo::synth::SynthOptions o;
  o.dir = dir;
  o.train_images = 16;
  o.val_images = 1;
  o.imgsz = 128;
  o.num_classes = 3;
  o.threads = 1;
  const fs::path yaml = yolo::synth::generate_synthetic_dataset(o).yaml;
  const yolo::DatasetConfig cfg = yolo::load_dataset_config(yaml, dir / "datasets");
  yolo::LoaderOptions lo;
  lo.imgsz = 128;
  lo.batch = 8;
  lo.workers = 0;
  yolo::DataLoader loader(
      yolo::scan_dataset(yolo::list_images(cfg.splits.at("train")), cfg.nc, 1).images, lo);
  loader.start_epoch(0);
  yolo::Batch b = *loader.next();
  const torch::Tensor keep = b.targets.select(1, 0) < 7;
  return {b.images, b.targets.index({keep})};
}

// What the oracle is given besides our weights.
struct OracleCase {
  std::string yaml;
  int64_t nc, epochs, updates;
  torch::Tensor images, targets;
  bool fp16;
};

// The case for the oracle (our weights by name, the batch, the targets, the autocast) in `file`,
// as tools/parity/ultralytics_gradients.py reads it.
void write_oracle_case(yolo::DetectionModelImpl& model, const OracleCase& c, const fs::path& file) {
  c10::Dict<std::string, torch::Tensor> state;
  for (const auto& p : model.named_parameters()) state.insert(p.key(), p.value().detach());
  for (const auto& b : model.named_buffers()) state.insert(b.key(), b.value().detach());
  c10::impl::GenericDict case_dict(c10::StringType::get(), c10::AnyType::get());
  case_dict.insert("yaml", c.yaml);
  case_dict.insert("nc", c.nc);
  case_dict.insert("epochs", c.epochs);
  case_dict.insert("updates", c.updates);
  case_dict.insert("state", state);
  case_dict.insert("images", c.images);
  case_dict.insert("targets", c.targets);
  case_dict.insert("autocast", std::string(c.fp16 ? "float16" : ""));
  const std::vector<char> bytes = torch::pickle_save(c10::IValue(case_dict));
  std::ofstream(file, std::ios::binary).write(bytes.data(), static_cast<long>(bytes.size()));
}

// Ultralytics' loss, its terms and its gradients on the case in `case_file` (the oracle's log in
// dir/oracle.log); none when the oracle failed.
std::optional<c10::impl::GenericDict> run_oracle(const fs::path& case_file, const fs::path& dir) {
  const fs::path out_file = dir / "ultralytics.pt";
  const std::string cmd = std::string(YOLO_TEST_PYTHON) + " " + YOLO_SOURCE_DIR +
                          "/tools/parity/ultralytics_gradients.py " + case_file.string() + " " +
                          out_file.string() + " > " + (dir / "oracle.log").string() + " 2>&1";
  if (std::system(cmd.c_str()) != 0) return std::nullopt;
  std::ifstream in(out_file, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  return torch::pickle_load(bytes).toGenericDict();
}

// (architecture, optimiser steps fitted to the batch before comparing, the batch): 0 steps
// compares at the random initialisation, where every prediction is poor; after 60 steps the
// predictions sit on the targets, so the assigner's choices and the loss on good predictions are
// compared too. The loader batch is compared at 6 of 10 epochs into the one-to-one / one-to-many
// weighting (YOLO26), the fixed one at its start.
class GradientParity : public ::testing::TestWithParam<std::tuple<std::string, int, bool, bool>> {};

constexpr double kFp32Tolerance = 1e-4;
// FP16: each tool's distance from FP32 (loss terms, the whole gradient), ours against
// Ultralytics'.
constexpr double kFp16ErrorRatio = 1.5, kFp16ErrorFloor = 1e-3;

// The total loss, then its items (box, cls, dfl), in double.
std::vector<double> loss_terms(const torch::Tensor& total, const torch::Tensor& items) {
  std::vector<double> out = {total.item<double>()};
  const torch::Tensor v = items.detach().to(torch::kDouble).flatten();
  for (int64_t i = 0; i < v.numel(); ++i) out.push_back(v[i].item<double>());
  return out;
}

// Each FP16 loss term of ours no further from FP32 than kFp16ErrorRatio times Ultralytics' own
// FP16 term (or kFp16ErrorFloor of the value).
void expect_loss_no_further_from_fp32(const std::vector<double>& ours,
                                      const std::vector<double>& theirs,
                                      const std::vector<double>& fp32, const std::string& yaml) {
  ASSERT_EQ(ours.size(), fp32.size());
  ASSERT_EQ(theirs.size(), fp32.size());
  for (std::size_t i = 0; i < fp32.size(); ++i) {
    const double ours_error = std::abs(ours[i] - fp32[i]);
    const double theirs_error = std::abs(theirs[i] - fp32[i]);
    std::printf("  loss term %zu: FP32 %.6g, FP16 ours %.6g, Ultralytics %.6g\n", i, fp32[i],
                ours[i], theirs[i]);
    EXPECT_LE(ours_error, std::max(kFp16ErrorRatio * theirs_error,
                                   kFp16ErrorFloor * std::max(std::abs(fp32[i]), 1e-3)))
        << yaml << " loss term " << i << " (0: total, then box, cls, dfl)";
  }
}

// The whole FP16 gradient of ours (`fp16_grads`, by name) no further from our FP32 gradient (now
// in `model`) than kFp16ErrorRatio times Ultralytics' FP16 gradient (`grads`), relative to the
// FP32 gradient's norm; every FP16 gradient finite.
void expect_gradients_no_further_from_fp32(yolo::DetectionModelImpl& model,
                                           std::map<std::string, torch::Tensor>& fp16_grads,
                                           const c10::Dict<c10::IValue, c10::IValue>& grads,
                                           const std::string& yaml) {
  double ours_sq = 0, theirs_sq = 0, fp32_sq = 0;
  for (const auto& p : model.named_parameters()) {
    if (!grads.contains(p.key())) continue;
    ASSERT_TRUE(fp16_grads.count(p.key())) << p.key();
    const torch::Tensor g32 = p.value().grad().to(torch::kDouble);
    const torch::Tensor g16 = fp16_grads[p.key()].to(torch::kDouble);
    const torch::Tensor r16 = grads.at(p.key()).toTensor().to(torch::kDouble);
    ASSERT_TRUE(torch::isfinite(g16).all().item<bool>()) << yaml << ": " << p.key();
    ours_sq += (g16 - g32).pow(2).sum().item<double>();
    theirs_sq += (r16 - g32).pow(2).sum().item<double>();
    fp32_sq += g32.pow(2).sum().item<double>();
  }
  const double ours_error = std::sqrt(ours_sq / fp32_sq);
  const double theirs_error = std::sqrt(theirs_sq / fp32_sq);
  std::printf("  FP16 gradients against FP32: relative error ours %.3g, Ultralytics %.3g\n",
              ours_error, theirs_error);
  EXPECT_LE(ours_error, std::max(kFp16ErrorRatio * theirs_error, kFp16ErrorFloor)) << yaml;
}

// Every parameter's gradient of `model` against Ultralytics' `grads` (FP32).
void expect_gradients_equal(yolo::DetectionModelImpl& model,
                            const c10::Dict<c10::IValue, c10::IValue>& grads,
                            const std::string& yaml) {
  // A gradient that is zero up to float32 rounding has no relative digits to compare: the
  // BatchNorm biases inside C2PSA/SPPF blocks feed a later normalisation, which cancels a
  // per-channel shift, so both tools compute 1e-8..1e-7 of noise there while the model's largest
  // gradient is ~10. The scale of each comparison is therefore at least 1e-3 of the model's
  // largest gradient.
  double largest = 0;
  for (const auto& item : grads)
    largest = std::max(largest, item.value().toTensor().abs().max().item<double>());
  int compared = 0;
  double worst = 0;
  std::string worst_name;
  for (const auto& p : model.named_parameters()) {
    const torch::Tensor g = p.value().grad();
    const bool theirs = grads.contains(p.key());
    ASSERT_EQ(g.defined(), theirs) << yaml << ": gradient of " << p.key();
    if (!theirs) continue;
    const torch::Tensor r = grads.at(p.key()).toTensor();
    ASSERT_EQ(g.sizes(), r.sizes()) << p.key();
    const double scale = std::max(r.abs().max().item<double>(), 1e-3 * largest);
    const double diff = (g - r).abs().max().item<double>() / scale;
    ASSERT_LE(diff, kFp32Tolerance)
        << yaml << ": first differing gradient " << p.key() << " (largest " << scale << ")";
    if (diff > worst) std::tie(worst, worst_name) = std::tuple{diff, p.key()};
    ++compared;
  }
  std::printf("  %d gradients, largest relative difference %.3g (%s)\n", compared, worst,
              worst_name.c_str());
  EXPECT_GT(compared, 100);
}

TEST_P(GradientParity, LossAndEveryGradientMatchUltralytics) {
  YOLO_REQUIRE_ORACLE();
  const auto [yaml, fit_steps, real_batch, fp16] = GetParam();
  const int64_t nc = 3, epochs = 10, updates = real_batch ? 6 : 0;
  yolo::testing::TempDir tmp("gradient_parity_" + yaml.substr(0, yaml.find('.')) + "_" +
                             std::to_string(fit_steps) + (real_batch ? "_loader" : "") +
                             (fp16 ? "_fp16" : ""));
  torch::Tensor images, batch_targets;
  if (real_batch) {
    std::tie(images, batch_targets) = loader_batch(tmp.path / "data");
  } else {
    images = torch::rand({2, 3, 64, 96});
    batch_targets = targets();
  }
  torch::manual_seed(7);
  auto model = yolo::build_model(yaml, static_cast<int>(nc));
  model->train();
  auto& det = model->detect();
  const yolo::LossGains gains;  // box 7.5, cls 0.5, dfl 1.5: Ultralytics' defaults
  yolo::DetectionLoss v8_loss(nc, det.reg_max, det.stride, gains);
  yolo::EndToEndLoss e2e_loss(nc, det.reg_max, det.stride, gains, static_cast<int>(epochs));
  e2e_loss.set_updates(static_cast<int>(updates));
  auto loss_of = [&](const yolo::nn::DetectTrainOutput& out) {
    auto [anchors, strides] = det.anchors_for(out.one2many.feats);
    return det.end2end ? e2e_loss(out, anchors, strides, batch_targets)
                       : v8_loss(out.one2many, anchors, strides, batch_targets);
  };
  if (fit_steps > 0) {
    yolo::Optimizer opt(
        yolo::OptimizerKind::kAdamW,
        yolo::make_param_groups(*model, yolo::OptimizerKind::kAdamW, 0.002, 0.9, 0));
    for (int i = 0; i < fit_steps; ++i) {
      opt.zero_grad();
      loss_of(model->forward_train(images)).total.backward();
      opt.step();
    }
    opt.zero_grad();
  }

  const fs::path case_file = tmp.path / "case.pt";
  write_oracle_case(*model, {yaml, nc, epochs, updates, images, batch_targets, fp16}, case_file);

  // Ours, on the same batch (the model's BatchNorm in training mode, as in training), as the
  // trainer's step runs it: the forward pass under autocast, the loss in FP32 (outputs_in_fp32).
  yolo::nn::DetectTrainOutput head;
  {
    yolo::AutocastScope autocast(c10::DeviceType::CPU, c10::ScalarType::Half, fp16);
    head = model->forward_train(images);
  }
  const yolo::LossOutput ours = loss_of(yolo::outputs_in_fp32(head));
  ours.total.backward();

  const std::optional<c10::impl::GenericDict> reference = run_oracle(case_file, tmp.path);
  ASSERT_TRUE(reference) << "the oracle failed: "
                         << yolo::testing::read_file(tmp.path / "oracle.log");
  const c10::impl::GenericDict& ref = *reference;
  const std::vector<double> theirs =
      loss_terms(ref.at("total").toTensor(), ref.at("items").toTensor());
  const std::vector<double> mine = loss_terms(ours.total, ours.items);
  std::printf("%s after %d fitting steps%s: loss %.6g (Ultralytics %.6g)\n", yaml.c_str(),
              fit_steps, fp16 ? ", FP16 autocast" : "", mine[0], theirs[0]);
  const auto grads = ref.at("grads").toGenericDict();
  if (!fp16) {
    for (std::size_t i = 0; i < mine.size(); ++i) {
      EXPECT_NEAR(mine[i], theirs[i], kFp32Tolerance * std::max(std::abs(theirs[i]), 1e-3))
          << yaml << " loss term " << i << " (0: total, then box, cls, dfl)";
    }
    expect_gradients_equal(*model, grads, yaml);
    return;
  }
  // FP16 rounds each tool's loss and gradients its own way: both are held to ours in FP32 on the
  // same weights and batch (equal to Ultralytics' FP32 ones, the cases above).
  std::map<std::string, torch::Tensor> fp16_grads;
  for (const auto& p : model->named_parameters()) {
    if (p.value().grad().defined()) fp16_grads[p.key()] = p.value().grad().clone();
    p.value().mutable_grad() = torch::Tensor();
  }
  const yolo::LossOutput fp32 = loss_of(model->forward_train(images));
  fp32.total.backward();
  expect_loss_no_further_from_fp32(mine, theirs, loss_terms(fp32.total, fp32.items), yaml);
  expect_gradients_no_further_from_fp32(*model, fp16_grads, grads, yaml);
}

INSTANTIATE_TEST_SUITE_P(
    Families, GradientParity,
    ::testing::Values(
        std::tuple{"yolov8n.yaml", 0, false, false}, std::tuple{"yolov8n.yaml", 60, false, false},
        std::tuple{"yolov8n.yaml", 0, true, false}, std::tuple{"yolo11n.yaml", 0, false, false},
        std::tuple{"yolo11n.yaml", 60, false, false}, std::tuple{"yolo11n.yaml", 0, true, false},
        std::tuple{"yolo26n.yaml", 0, false, false}, std::tuple{"yolo26n.yaml", 60, false, false},
        std::tuple{"yolo26n.yaml", 0, true, false}, std::tuple{"yolo26n.yaml", 30, true, false},
        std::tuple{"yolov8n.yaml", 0, true, true}, std::tuple{"yolov8n.yaml", 60, false, true},
        std::tuple{"yolo26n.yaml", 0, true, true}, std::tuple{"yolo26n.yaml", 30, true, true}),
    [](const auto& test_param) {
      const std::string n = std::get<0>(test_param.param);
      return n.substr(0, n.find('.')) + "_fitted" + std::to_string(std::get<1>(test_param.param)) +
             (std::get<2>(test_param.param) ? "_loaderbatch" : "") +
             (std::get<3>(test_param.param) ? "_fp16" : "");
    });

}  // namespace
