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
// ones on the same weights (which equal Ultralytics' FP32 ones, the cases above). How far FP16
// lands from FP32 depends on the CPU's arithmetic and on the rounding pattern of one batch, so
// the bound is measured, not assumed (#68: a constant ratio held on one processor and not on
// another): on the batch and noisy copies of it, ours may be no further from FP32 than
// Ultralytics' by more than the spread of the difference over those copies allows (a one-sided
// paired t bound at 99.5 %), or than FP16's unit roundoff of the value.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
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
  std::vector<torch::Tensor> variants;  // more batches of images, each run like `images`
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
  if (!c.variants.empty()) {
    c10::List<torch::Tensor> variants;
    for (const torch::Tensor& v : c.variants) variants.push_back(v);
    case_dict.insert("variants", variants);
  }
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
// Ultralytics', over the batch and kFp16Variants - 1 copies with noise of kFp16NoiseLevel.
constexpr int kFp16Variants = 6;
constexpr double kFp16NoiseLevel = 2.0 / 255;
// Student's t at 99.5 %, one-sided, for kFp16Variants - 1 = 5 degrees of freedom.
constexpr double kStudentT995 = 4.032;
static_assert(kFp16Variants == 6, "kStudentT995 is for 5 degrees of freedom");
// FP16's unit roundoff (2^-11): the largest relative error of rounding one value to FP16.
constexpr double kFp16UnitRoundoff = 1.0 / 2048;

// The total loss, then its items (box, cls, dfl), in double.
std::vector<double> loss_terms(const torch::Tensor& total, const torch::Tensor& items) {
  std::vector<double> out = {total.item<double>()};
  const torch::Tensor v = items.detach().to(torch::kDouble).flatten();
  for (int64_t i = 0; i < v.numel(); ++i) out.push_back(v[i].item<double>());
  return out;
}

// One quantity's distance from FP32 at FP16, ours and Ultralytics', on each variant of the batch.
struct PairedErrors {
  std::vector<double> ours, theirs;
};

// Ours no further from FP32 than Ultralytics' beyond what this CPU's own spread allows: the mean
// of (ours - theirs) over the variants at most kStudentT995 standard errors of that difference,
// or FP16's unit roundoff of `scale` (the FP32 value).
void expect_no_further_from_fp32(const PairedErrors& e, double scale, const std::string& what) {
  const auto n = static_cast<double>(e.ours.size());
  ASSERT_EQ(e.ours.size(), e.theirs.size());
  ASSERT_GE(n, 2) << what;
  double mean = 0, mean_ours = 0, mean_theirs = 0;
  for (std::size_t k = 0; k < e.ours.size(); ++k) {
    mean += (e.ours[k] - e.theirs[k]) / n;
    mean_ours += e.ours[k] / n;
    mean_theirs += e.theirs[k] / n;
  }
  double var = 0;
  for (std::size_t k = 0; k < e.ours.size(); ++k)
    var += std::pow(e.ours[k] - e.theirs[k] - mean, 2) / (n - 1);
  const double bound = std::max(kStudentT995 * std::sqrt(var / n), kFp16UnitRoundoff * scale);
  std::printf(
      "  %s: FP16 error from FP32, mean over %d variants: ours %.3g, Ultralytics %.3g "
      "(difference %.3g, bound %.3g)\n",
      what.c_str(), static_cast<int>(n), mean_ours, mean_theirs, mean, bound);
  EXPECT_LE(mean, bound) << what << ": ours " << mean_ours << ", Ultralytics " << mean_theirs;
}

// The whole gradient's distance between two sets of gradients by name, relative to the norm of
// `reference`.
double gradient_distance(const std::map<std::string, torch::Tensor>& grads,
                         const std::map<std::string, torch::Tensor>& reference) {
  double diff_sq = 0, ref_sq = 0;
  for (const auto& [name, g32] : reference) {
    const torch::Tensor g = grads.at(name).to(torch::kDouble);
    diff_sq += (g - g32.to(torch::kDouble)).pow(2).sum().item<double>();
    ref_sq += g32.to(torch::kDouble).pow(2).sum().item<double>();
  }
  return std::sqrt(diff_sq / ref_sq);
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

// Each FP16 loss term and the whole FP16 gradient, ours and Ultralytics', against our FP32 on the
// same weights, over the batch (`images`, whose FP16 loss terms are `mine` and whose FP16
// gradients are in `model`) and its noisy `variants` (Ultralytics' runs in `ref`).
void compare_fp16_variants(
    yolo::DetectionModelImpl& model,
    const std::function<yolo::LossOutput(const yolo::nn::DetectTrainOutput&)>& loss_of,
    const torch::Tensor& images, const std::vector<torch::Tensor>& variants,
    const std::vector<double>& mine, const c10::impl::GenericDict& ref, const std::string& yaml) {
  const auto grads_of = [&] {
    std::map<std::string, torch::Tensor> g;
    for (const auto& p : model.named_parameters()) {
      if (p.value().grad().defined()) g[p.key()] = p.value().grad().clone();
      p.value().mutable_grad() = torch::Tensor();
    }
    return g;
  };
  const auto theirs_grads = [](const c10::impl::GenericDict& run) {
    std::map<std::string, torch::Tensor> g;
    for (const auto& item : run.at("grads").toGenericDict())
      g[item.key().toStringRef()] = item.value().toTensor();
    return g;
  };
  const std::vector<std::string> term_names = {"total", "box", "cls", "dfl"};
  std::vector<PairedErrors> terms(mine.size());
  std::vector<double> term_scale(mine.size(), 0);
  PairedErrors gradient;
  const c10::List<c10::IValue> their_variants = ref.at("variants").toList();
  ASSERT_EQ(their_variants.size(), variants.size());
  for (int k = 0; k < kFp16Variants; ++k) {
    const torch::Tensor batch = k == 0 ? images : variants[k - 1];
    const c10::impl::GenericDict run = k == 0 ? ref : their_variants.get(k - 1).toGenericDict();
    std::vector<double> ours16 = mine;
    if (k > 0) {
      yolo::nn::DetectTrainOutput out;
      {
        yolo::AutocastScope autocast(c10::DeviceType::CPU, c10::ScalarType::Half, true);
        out = model.forward_train(batch);
      }
      const yolo::LossOutput l = loss_of(yolo::outputs_in_fp32(out));
      l.total.backward();
      ours16 = loss_terms(l.total, l.items);
    }
    const std::map<std::string, torch::Tensor> g16 = grads_of();
    const yolo::LossOutput l32 = loss_of(model.forward_train(batch));
    l32.total.backward();
    const std::vector<double> fp32 = loss_terms(l32.total, l32.items);
    const std::map<std::string, torch::Tensor> g32 = grads_of();
    const std::vector<double> theirs16 =
        loss_terms(run.at("total").toTensor(), run.at("items").toTensor());
    const std::map<std::string, torch::Tensor> r16 = theirs_grads(run);
    for (const auto& [name, g] : g16) {
      ASSERT_TRUE(torch::isfinite(g).all().item<bool>()) << yaml << ": " << name;
      ASSERT_TRUE(r16.count(name)) << name;
    }
    ASSERT_EQ(ours16.size(), fp32.size());
    for (std::size_t i = 0; i < fp32.size(); ++i) {
      terms[i].ours.push_back(std::abs(ours16[i] - fp32[i]));
      terms[i].theirs.push_back(std::abs(theirs16[i] - fp32[i]));
      term_scale[i] = std::max(term_scale[i], std::abs(fp32[i]));
    }
    gradient.ours.push_back(gradient_distance(g16, g32));
    gradient.theirs.push_back(gradient_distance(r16, g32));
  }
  for (std::size_t i = 0; i < terms.size(); ++i) {
    expect_no_further_from_fp32(terms[i], term_scale[i],
                                yaml + " loss " + (i < term_names.size() ? term_names[i] : "?"));
  }
  expect_no_further_from_fp32(gradient, 1.0, yaml + " gradient (relative to its norm)");
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

  // FP16: the batch and noisy copies of it (seeded), to measure the spread of FP16's error.
  std::vector<torch::Tensor> variants;
  if (fp16) {
    torch::manual_seed(11);
    for (int k = 1; k < kFp16Variants; ++k)
      variants.push_back((images + kFp16NoiseLevel * torch::randn_like(images)).clamp(0, 1));
  }
  const fs::path case_file = tmp.path / "case.pt";
  write_oracle_case(*model, {yaml, nc, epochs, updates, images, batch_targets, fp16, variants},
                    case_file);

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
  // same weights and batch (equal to Ultralytics' FP32 ones, the cases above), on every variant.
  compare_fp16_variants(*model, loss_of, images, variants, mine, ref, yaml);
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
