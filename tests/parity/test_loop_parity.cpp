// Parity with Ultralytics run as an oracle (label `parity`; skipped without the ultralytics
// package in the test Python: tools/install-deps.sh --oracle).
//
// The training loop as a whole: both trainers run the same stored batches (our loader's) from the
// same initial weights, and the weights and EMA after every optimiser step must agree. This is
// what the per-piece tests (gradients, schedule) cannot see: the order of warm-up, accumulation
// across batches and epoch boundaries, clipping, AdamW's state, the EMA, YOLO26's one-to-many /
// one-to-one weighting by epoch, the lr per epoch. YOLO26 is compared twice: from the random
// initialisation, and from weights first fitted to the batches, where the assigner chooses among
// good predictions (the case a gap that grows late in training would come from).
//
// Both run in float64 (parity_replay_train --double, ultralytics_replay_train.py --double). In
// float32 the two agree to rounding at the first step, but CPU training is chaotic here (rounding
// differences grow ~2x per batch through the assigner's choices), so after ~12 steps float32 runs
// can only be compared statistically; in float64 the same growth starts from 1e-16 and stays below
// 1e-6 for the whole run, so any difference in the algorithm stands out by many decades.
//
// One kind of tensor is excluded: parameters the loss does not depend on (a BatchNorm shift that a
// later BatchNorm removes in training mode, e.g. in attention blocks). Their gradient is rounding
// noise, which Adam scales to full-size steps of random sign in both tools alike; they are found
// by their gradient on the first batch and named in the output, and the BatchNorm statistics that
// see their shift are compared to a looser tolerance.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "oracle.h"
#include "pickle_file.h"
#include "test_files.h"
#include "yolo/models/detection_model.h"
#include "yolo/trainer/data/data_loader.h"
#include "yolo/trainer/data/dataset.h"
#include "yolo/trainer/settings/config.h"
#include "yolo/trainer/train/loss.h"
#include "yolo/trainer/train/optimizer.h"
#include "yolo/trainer/train/trainer.h"

namespace fs = std::filesystem;

namespace {

using TensorMap = std::map<std::string, torch::Tensor>;

// 32 images of 64 px in batches of 4 (8 a epoch), nbs=16 (4 batches a step after warm-up), one
// warm-up epoch, 4 epochs: the accumulation ramps 1 -> 4 during warm-up, steps span epoch
// boundaries, and YOLO26's one-to-many weight falls from 0.8 to its floor.
const std::vector<std::pair<std::string, std::string>> kRunArgs = {
    {"imgsz", "64"},        {"epochs", "4"},       {"batch", "4"},    {"nbs", "16"},
    {"warmup_epochs", "1"}, {"close_mosaic", "0"}, {"device", "cpu"}, {"workers", "0"},
    {"val", "False"},       {"plots", "False"},    {"seed", "0"},     {"amp", "False"},
    {"save", "False"}};  // no checkpoint after each epoch: the steps are what is compared
constexpr int kEpochs = 4;
constexpr int kSteps = 10;  // optimiser steps compared (the run has 12)

using yolo::parity::read_pickle;
using yolo::parity::write_pickle;

TensorMap to_map(const c10::IValue& dict) {
  TensorMap out;
  for (const auto& item : dict.toGenericDict())
    out[item.key().toStringRef()] = item.value().toTensor();
  return out;
}

TensorMap state_of(const yolo::DetectionModelImpl& m) {
  TensorMap d;
  for (const auto& p : m.named_parameters()) d[p.key()] = p.value().detach().clone();
  for (const auto& b : m.named_buffers()) d[b.key()] = b.value().detach().clone();
  return d;
}

// Our loader's batches of the whole run, as parity_dump_loader_batches writes them.
void write_batches(const fs::path& yaml, const fs::path& out) {
  fs::create_directories(out);
  const yolo::DatasetConfig cfg = yolo::load_dataset_config(yaml);
  yolo::LoaderOptions o;
  o.imgsz = 64;
  o.batch = 4;
  o.workers = 0;
  yolo::DataLoader loader(
      yolo::scan_dataset(yolo::list_images(cfg.splits.at("train")), cfg.nc, 1).images, o);
  for (int e = 0; e < kEpochs; ++e) {
    loader.start_epoch(e);
    while (auto b = loader.next()) {
      c10::impl::GenericDict d(c10::StringType::get(), c10::AnyType::get());
      d.insert("images", b->images.mul(255).round_().to(torch::kUInt8).contiguous());
      d.insert("targets", b->targets.contiguous());
      write_pickle(out / ("e" + std::to_string(e) + "_b" + std::to_string(b->index) + ".pt"),
                   c10::IValue(d));
    }
  }
}

void load_into(yolo::DetectionModelImpl& m, const TensorMap& state) {
  torch::NoGradGuard no_grad;
  for (auto& p : m.named_parameters()) p.value().copy_(state.at(p.key()));
  for (auto& b : m.named_buffers()) b.value().copy_(state.at(b.key()));
}

std::pair<torch::Tensor, torch::Tensor> read_batch(const fs::path& file) {
  const auto d = read_pickle(file).toGenericDict();
  return {d.at("images").toTensor().to(torch::kDouble).div_(255),
          d.at("targets").toTensor().to(torch::kDouble)};
}

// The training loss of one batch (YOLO26: both heads at the start of their weighting).
torch::Tensor training_loss(yolo::DetectionModelImpl& model, int64_t nc,
                            const torch::Tensor& images, const torch::Tensor& targets) {
  auto& det = model.detect();
  const yolo::LossGains gains;
  const auto out = model.forward_train(images);
  auto [anchors, strides] = det.anchors_for(out.one2many.feats);
  if (det.end2end) {
    yolo::EndToEndLoss loss(nc, det.reg_max, det.stride, gains, kEpochs);
    return loss(out, anchors, strides, targets).total;
  }
  yolo::DetectionLoss loss(nc, det.reg_max, det.stride, gains);
  return loss(out.one2many, anchors, strides, targets).total;
}

// Weights whose predictions sit on the targets: `steps` AdamW steps (float32) over the run's own
// batches from `init`. The loop comparison from these exercises what a random start cannot: the
// assigner choosing among good predictions, the loss near its minimum.
TensorMap fitted_weights(const std::string& yaml, int64_t nc, const TensorMap& init,
                         const fs::path& batches, int steps) {
  auto model = yolo::build_model(yaml, static_cast<int>(nc));
  load_into(*model, init);
  model->train();
  yolo::Optimizer opt(yolo::OptimizerKind::kAdamW,
                      yolo::make_param_groups(*model, yolo::OptimizerKind::kAdamW, 0.005, 0.9, 0));
  std::vector<fs::path> files;
  for (const auto& f : fs::directory_iterator(batches)) files.push_back(f.path());
  std::sort(files.begin(), files.end());
  const int pass = static_cast<int>(files.size());
  double first = 0, last = 0;  // mean loss over the first and the last pass over the batches
  for (int i = 0; i < steps; ++i) {
    auto [images, targets] = read_batch(files[static_cast<size_t>(i % pass)]);
    opt.zero_grad();
    torch::Tensor loss =
        training_loss(*model, nc, images.to(torch::kFloat), targets.to(torch::kFloat));
    loss.backward();
    opt.step();
    if (i < pass) first += loss.item<double>() / pass;
    if (i >= steps - pass) last += loss.item<double>() / pass;
  }
  std::printf("%s fitted for %d steps: mean loss %.4g over the first pass, %.4g over the last\n",
              yaml.c_str(), steps, first, last);
  EXPECT_LT(last, 0.8 * first) << "the fit did not take hold";
  return state_of(*model);
}

// The parameters whose gradient on the first batch is zero up to float64 rounding: the loss does
// not depend on them.
std::set<std::string> loss_free_parameters(const std::string& yaml, int64_t nc,
                                           const TensorMap& init, const fs::path& batch) {
  auto model = yolo::build_model(yaml, static_cast<int>(nc));
  load_into(*model, init);
  model->to(torch::kDouble);
  model->train();
  const auto [images, targets] = read_batch(batch);
  training_loss(*model, nc, images, targets).backward();
  double largest = 0;
  for (const auto& p : model->parameters())
    if (p.grad().defined()) largest = std::max(largest, p.grad().abs().max().item<double>());
  // An exact zero is left in: Adam then moves the parameter by its weight decay alone, the same in
  // both tools. A branch with no target assigned on this batch (the coarsest level on 64 px
  // images) gets either an exact zero or rounding noise, and in the second case is left out too;
  // the output names every parameter left out.
  std::set<std::string> out_names;
  for (const auto& p : model->named_parameters()) {
    if (!p.value().grad().defined()) continue;
    const double g = p.value().grad().abs().max().item<double>();
    if (g > 0 && g < 1e-9 * largest) out_names.insert(p.key());
  }
  return out_names;
}

// (architecture, start from fitted weights instead of the random initialisation)
class LoopParity : public ::testing::TestWithParam<std::pair<std::string, bool>> {};

}  // namespace

TEST_P(LoopParity, EveryOptimiserStepMatchesUltralytics) {
  YOLO_REQUIRE_ORACLE();
  const auto [yaml, fitted] = GetParam();
  const int64_t nc = 3;
  yolo::testing::TempDir tmp("loop_parity_" + yaml.substr(0, yaml.find('.')) +
                             (fitted ? "_fitted" : ""));
  const fs::path data = yolo::parity::shapes_dataset(tmp.path / "data", 32, 4);
  const fs::path batches = tmp.path / "batches";
  write_batches(data, batches);
  // Ultralytics' own copy of the set: its label cache shares our cache's name.
  const fs::path theirs = tmp.path / "data_ultralytics";
  fs::copy(tmp.path / "data", theirs, fs::copy_options::recursive);
  {
    std::ofstream y(theirs / "data.yaml");
    y << "path: " << fs::absolute(theirs).string()
      << "\ntrain: images/train\nval: images/val\nnc: 3\nnames: {0: rectangle, 1: ellipse, 2: "
         "triangle}\n";
  }

  // The initial weights: our initialisation (fitted to the batches first when asked), written by
  // name for both.
  torch::manual_seed(3);
  TensorMap init = state_of(*yolo::build_model(yaml, static_cast<int>(nc)));
  if (fitted) init = fitted_weights(yaml, nc, init, batches, 400);
  {
    c10::Dict<std::string, torch::Tensor> d;
    for (const auto& [k, v] : init) d.insert(k, v);
    write_pickle(tmp.path / "init.pt", c10::IValue(d));
  }
  const std::set<std::string> loss_free =
      loss_free_parameters(yaml, nc, init, batches / "e0_b0.pt");

  // Ours, in this process: every step's weights and EMA kept in memory.
  std::map<int64_t, std::pair<TensorMap, TensorMap>> ours;
  {
    yolo::Config cfg;
    std::vector<std::pair<std::string, std::string>> args = kRunArgs;
    args.push_back({"model", yaml});
    args.push_back({"data", data.string()});
    args.push_back({"project", (tmp.path / "runs").string()});
    args.push_back({"name", "ours"});
    cfg.apply_text_overrides(args);
    yolo::Trainer trainer(cfg);
    trainer.initialise_model([&](yolo::DetectionModelImpl& m) {
      load_into(m, init);
      m.to(torch::kDouble);
    });
    trainer.set_batch_source([&](int epoch, int64_t index, yolo::Batch& out) {
      const fs::path f =
          batches / ("e" + std::to_string(epoch) + "_b" + std::to_string(index) + ".pt");
      if (!fs::exists(f)) return false;
      std::tie(out.images, out.targets) = read_batch(f);
      return true;
    });
    trainer.set_step_callback([&](int64_t ni, const yolo::DetectionModelImpl& model,
                                  const yolo::DetectionModelImpl& ema) {
      if (ours.size() >= kSteps) return;
      ours[ni] = {state_of(model), state_of(ema)};
      if (ours.size() == kSteps) trainer.request_stop();
    });
    trainer.train();
  }
  ASSERT_EQ(ours.size(), static_cast<size_t>(kSteps));

  // Ultralytics' DetectionTrainer on the same files.
  const fs::path dumps = tmp.path / "ultralytics_steps";
  std::string cmd = std::string(YOLO_TEST_PYTHON) + " " + YOLO_SOURCE_DIR +
                    "/tools/parity/ultralytics_replay_train.py --double --threads 2 --batches " +
                    batches.string() + " --init " + (tmp.path / "init.pt").string() + " --dump " +
                    dumps.string() + " --dump-steps " + std::to_string(kSteps) +
                    " --stop-after-dump model=" + yaml +
                    " data=" + (theirs / "data.yaml").string() +
                    " project=" + (tmp.path / "runs").string() + " name=ultralytics";
  for (const auto& [k, v] : kRunArgs) cmd += " " + k + "=" + v;
  const fs::path log = tmp.path / "ultralytics.log";
  cmd += " > " + log.string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "the oracle failed: " << yolo::testing::read_file(log);

  int compared_steps = 0;
  double worst_seen = 0;
  for (const auto& [ni, state] : ours) {
    const fs::path file = dumps / ("step" + std::to_string(ni) + ".pt");
    ASSERT_TRUE(fs::exists(file)) << yaml << ": Ultralytics made no optimiser step at iteration "
                                  << ni << " (the steps fall at different iterations)";
    const auto ref = read_pickle(file).toGenericDict();
    for (const char* part : {"model", "ema"}) {
      const TensorMap theirs_state = to_map(ref.at(part));
      const TensorMap& mine = std::string(part) == "model" ? state.first : state.second;
      ASSERT_EQ(mine.size(), theirs_state.size()) << part << " tensors";
      // Each tensor's error is measured against how far it moved (root mean square per element),
      // but at least against 1e-3 of the median tensor's move: a tensor that barely moved (a
      // branch with almost no gradient yet) has no relative digits to compare.
      std::map<std::string, double> moved;
      std::vector<double> moves;
      for (const auto& [name, t] : theirs_state) {
        if (!t.is_floating_point() || loss_free.count(name)) continue;  // num_batches_tracked
        const torch::Tensor d = t.to(torch::kDouble) - init.at(name).to(torch::kDouble);
        moved[name] = d.pow(2).mean().sqrt().item<double>();
        if (moved[name] > 0) moves.push_back(moved[name]);
      }
      ASSERT_FALSE(moves.empty()) << part << ": nothing moved";
      std::nth_element(moves.begin(), moves.begin() + moves.size() / 2, moves.end());
      const double floor = 1e-3 * moves[moves.size() / 2];
      for (const auto& [name, move] : moved) {
        if (move == 0) continue;  // not trained (e.g. the DFL projection)
        const torch::Tensor& t = theirs_state.at(name);
        const double err = (mine.at(name).to(torch::kDouble) - t.to(torch::kDouble))
                               .pow(2)
                               .mean()
                               .sqrt()
                               .item<double>() /
                           std::max(move, floor);
        // BatchNorm statistics also average the shift of a loss-free parameter upstream.
        const bool stats = name.find("running_") != std::string::npos;
        const double tolerance = stats ? 1e-2 : 1e-6;
        worst_seen = std::max(worst_seen, stats ? 0.0 : err);
        ASSERT_LE(err, tolerance) << yaml << ": " << part << " tensor " << name
                                  << " after the optimiser step at iteration " << ni
                                  << " differs from Ultralytics' by " << err << " of its update";
      }
    }
    ++compared_steps;
  }
  std::string names;
  for (const auto& n : loss_free) names += " " + n;
  std::printf(
      "%s: %d optimiser steps over %d epochs equal to %.2g of the update; loss-free "
      "parameters left out:%s\n",
      yaml.c_str(), compared_steps, kEpochs, worst_seen, names.c_str());
  EXPECT_GE(ours.rbegin()->first, 2 * 8) << "the compared steps reach the third epoch";
}

INSTANTIATE_TEST_SUITE_P(Families, LoopParity,
                         // yolo11n runs the same loop as yolov8n (DFL, one head) and its attention
                         // blocks as yolo26n; the loop itself has no per-model code. YOLO26 also
                         // from fitted weights: its one-to-one assignment (top-1) depends most on
                         // which predictions are good.
                         ::testing::Values(std::pair<std::string, bool>{"yolov8n.yaml", false},
                                           std::pair<std::string, bool>{"yolo26n.yaml", false},
                                           std::pair<std::string, bool>{"yolo26n.yaml", true}),
                         [](const auto& test_param) {
                           const std::string& n = test_param.param.first;
                           return n.substr(0, n.find('.')) +
                                  (test_param.param.second ? "_fitted" : "");
                         });
