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
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

#include "oracle.h"
#include "test_files.h"
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

// (architecture, optimiser steps fitted to the batch before comparing, the batch): 0 steps
// compares at the random initialisation, where every prediction is poor; after 60 steps the
// predictions sit on the targets, so the assigner's choices and the loss on good predictions are
// compared too. The loader batch is compared at 6 of 10 epochs into the one-to-one / one-to-many
// weighting (YOLO26), the fixed one at its start.
class GradientParity : public ::testing::TestWithParam<std::tuple<std::string, int, bool>> {};

TEST_P(GradientParity, LossAndEveryGradientMatchUltralytics) {
  YOLO_REQUIRE_ORACLE();
  const auto [yaml, fit_steps, real_batch] = GetParam();
  const int64_t nc = 3, epochs = 10, updates = real_batch ? 6 : 0;
  yolo::testing::TempDir tmp("gradient_parity_" + yaml.substr(0, yaml.find('.')) + "_" +
                             std::to_string(fit_steps) + (real_batch ? "_loader" : ""));
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

  // The case for the oracle: our weights by name, the batch, the targets.
  c10::Dict<std::string, torch::Tensor> state;
  for (const auto& p : model->named_parameters()) state.insert(p.key(), p.value().detach());
  for (const auto& b : model->named_buffers()) state.insert(b.key(), b.value().detach());
  c10::impl::GenericDict case_dict(c10::StringType::get(), c10::AnyType::get());
  case_dict.insert("yaml", yaml);
  case_dict.insert("nc", nc);
  case_dict.insert("epochs", epochs);
  case_dict.insert("updates", updates);
  case_dict.insert("state", state);
  case_dict.insert("images", images);
  case_dict.insert("targets", batch_targets);
  const fs::path case_file = tmp.path / "case.pt", out_file = tmp.path / "ultralytics.pt";
  {
    const std::vector<char> bytes = torch::pickle_save(c10::IValue(case_dict));
    std::ofstream(case_file, std::ios::binary).write(bytes.data(), static_cast<long>(bytes.size()));
  }

  // Ours, on the same batch (the model's BatchNorm in training mode, as in training).
  const yolo::LossOutput ours = loss_of(model->forward_train(images));
  ours.total.backward();

  const std::string cmd = std::string(YOLO_TEST_PYTHON) + " " + YOLO_SOURCE_DIR +
                          "/tools/parity/ultralytics_gradients.py " + case_file.string() + " " +
                          out_file.string() + " > " + (tmp.path / "oracle.log").string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0)
      << "the oracle failed: " << yolo::testing::read_file(tmp.path / "oracle.log");
  std::ifstream in(out_file, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  const c10::IValue reference = torch::pickle_load(bytes);
  const auto ref = reference.toGenericDict();
  const double total_ref = ref.at("total").toTensor().item<double>();
  const double total_ours = ours.total.item<double>();
  EXPECT_NEAR(total_ours, total_ref, 1e-4 * std::abs(total_ref)) << yaml << " total loss";
  std::printf("%s after %d fitting steps: loss %.6g (Ultralytics %.6g)\n", yaml.c_str(), fit_steps,
              total_ours, total_ref);
  const auto grads = ref.at("grads").toGenericDict();
  // A gradient that is zero up to float32 rounding has no relative digits to compare: the BatchNorm
  // biases inside C2PSA/SPPF blocks feed a later normalisation, which cancels a per-channel shift,
  // so both tools compute 1e-8..1e-7 of noise there while the model's largest gradient is ~10. The
  // scale of each comparison is therefore at least 1e-3 of the model's largest gradient.
  double largest = 0;
  for (const auto& item : grads)
    largest = std::max(largest, item.value().toTensor().abs().max().item<double>());
  int compared = 0;
  for (const auto& p : model->named_parameters()) {
    const torch::Tensor g = p.value().grad();
    const bool theirs = grads.contains(p.key());
    ASSERT_EQ(g.defined(), theirs) << yaml << ": gradient of " << p.key();
    if (!theirs) continue;
    const torch::Tensor r = grads.at(p.key()).toTensor();
    ASSERT_EQ(g.sizes(), r.sizes()) << p.key();
    const double scale = std::max(r.abs().max().item<double>(), 1e-3 * largest);
    const double diff = (g - r).abs().max().item<double>() / scale;
    ASSERT_LE(diff, 1e-4) << yaml << ": first differing gradient " << p.key() << " (largest "
                          << scale << ")";
    ++compared;
  }
  EXPECT_GT(compared, 100);
}

INSTANTIATE_TEST_SUITE_P(
    Families, GradientParity,
    ::testing::Values(std::tuple{"yolov8n.yaml", 0, false}, std::tuple{"yolov8n.yaml", 60, false},
                      std::tuple{"yolov8n.yaml", 0, true}, std::tuple{"yolo11n.yaml", 0, false},
                      std::tuple{"yolo11n.yaml", 60, false}, std::tuple{"yolo11n.yaml", 0, true},
                      std::tuple{"yolo26n.yaml", 0, false}, std::tuple{"yolo26n.yaml", 60, false},
                      std::tuple{"yolo26n.yaml", 0, true}, std::tuple{"yolo26n.yaml", 30, true}),
    [](const auto& test_param) {
      const std::string n = std::get<0>(test_param.param);
      return n.substr(0, n.find('.')) + "_fitted" + std::to_string(std::get<1>(test_param.param)) +
             (std::get<2>(test_param.param) ? "_loaderbatch" : "");
    });

}  // namespace
