// Optimisers (hand-computed steps), Ultralytics' parameter groups, MuSGD's Newton-Schulz step,
// the LR schedule with warm-up, EMA and the AMP decision.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <set>

#include "yolo/models/detection_model.h"
#include "yolo/trainer/train/amp_check.h"
#include "yolo/trainer/train/model_ema.h"
#include "yolo/trainer/train/multi_scale.h"
#include "yolo/trainer/train/optimizer.h"
#include "yolo/trainer/train/schedule.h"

namespace {

yolo::ParamGroup one_param_group(const std::string& name, torch::Tensor p, double lr,
                                 double momentum, double wd) {
  yolo::ParamGroup g;
  g.name = name;
  g.param_names = {name + ".p"};
  g.params = {p};
  g.lr = g.initial_lr = lr;
  g.momentum = momentum;
  g.weight_decay = wd;
  return g;
}

}  // namespace

TEST(Optimizer, SgdNesterovMatchesHandComputedSteps) {
  auto p = torch::tensor({1.0}).requires_grad_(true);
  yolo::Optimizer opt(yolo::OptimizerKind::kSGD, {one_param_group("w", p, 0.1, 0.9, 0)});
  p.mutable_grad() = torch::tensor({0.5});
  opt.step();  // buf 0.5, update 0.5 + 0.9*0.5 = 0.95
  EXPECT_NEAR(p.item<double>(), 1.0 - 0.095, 1e-6);
  p.mutable_grad() = torch::tensor({0.5});
  opt.step();  // buf 0.9*0.5 + 0.5 = 0.95, update 0.5 + 0.855 = 1.355
  EXPECT_NEAR(p.item<double>(), 0.905 - 0.1355, 1e-6);
}

TEST(Optimizer, SgdWeightDecayEntersTheGradient) {
  auto p = torch::tensor({2.0}).requires_grad_(true);
  yolo::Optimizer opt(yolo::OptimizerKind::kSGD, {one_param_group("w", p, 0.1, 0.0, 0.5)});
  p.mutable_grad() = torch::tensor({0.0});
  opt.step();  // d = 0 + 0.5 * 2 = 1
  EXPECT_NEAR(p.item<double>(), 1.9, 1e-6);
}

TEST(Optimizer, AdamWFirstStepIsSignTimesLrPlusDecoupledDecay) {
  auto p = torch::tensor({1.0, -1.0}).requires_grad_(true);
  yolo::Optimizer opt(yolo::OptimizerKind::kAdamW, {one_param_group("w", p, 0.01, 0.9, 0.1)});
  p.mutable_grad() = torch::tensor({3.0, -0.2});
  opt.step();
  // Bias-corrected moments equal g and g^2 after one step: update lr * g / |g|.
  EXPECT_NEAR(p[0].item<double>(), 1.0 * (1 - 0.001) - 0.01, 1e-6);
  EXPECT_NEAR(p[1].item<double>(), -1.0 * (1 - 0.001) + 0.01, 1e-6);
}

// Many steps with changing gradients and a learning rate changed between steps (as warm-up
// does): the same trajectory as LibTorch's own Adam / AdamW, which match PyTorch's.
TEST(Optimizer, AdamFamilyFollowsLibTorchOverManySteps) {
  for (bool decoupled : {true, false}) {
    torch::manual_seed(5);
    const torch::Tensor start = torch::randn({4, 3});
    auto ours = start.clone().requires_grad_(true);
    auto theirs = start.clone().requires_grad_(true);
    const double lr = 0.002, wd = 0.05;
    yolo::Optimizer opt(decoupled ? yolo::OptimizerKind::kAdamW : yolo::OptimizerKind::kAdam,
                        {one_param_group("w", ours, lr, 0.9, wd)});
    std::unique_ptr<torch::optim::Optimizer> ref;
    if (decoupled)
      ref = std::make_unique<torch::optim::AdamW>(
          std::vector<torch::Tensor>{theirs},
          torch::optim::AdamWOptions(lr).betas({0.9, 0.999}).eps(1e-8).weight_decay(wd));
    else
      ref = std::make_unique<torch::optim::Adam>(
          std::vector<torch::Tensor>{theirs},
          torch::optim::AdamOptions(lr).betas({0.9, 0.999}).eps(1e-8).weight_decay(wd));
    for (int step = 0; step < 25; ++step) {
      const double step_lr = lr * (step + 1) / 25.0;  // a ramp, like the warm-up
      opt.groups()[0].lr = step_lr;
      ref->param_groups()[0].options().set_lr(step_lr);
      const torch::Tensor g = torch::randn({4, 3}) * (1.0 + step % 3);
      ours.mutable_grad() = g.clone();
      theirs.mutable_grad() = g.clone();
      opt.step();
      ref->step();
    }
    EXPECT_LE((ours - theirs).abs().max().item<double>(), 1e-6) << "decoupled=" << decoupled;
    EXPECT_GT((ours - start).abs().max().item<double>(), 1e-3);  // it did move
  }
}

TEST(Optimizer, AdamAddsL2DecayToTheGradient) {
  auto p = torch::tensor({1.0}).requires_grad_(true);
  yolo::Optimizer opt(yolo::OptimizerKind::kAdam, {one_param_group("w", p, 0.01, 0.9, 1.0)});
  p.mutable_grad() = torch::tensor({-1.0});  // plus 1.0 * p = +1.0: zero gradient
  opt.step();
  EXPECT_NEAR(p.item<double>(), 1.0, 1e-6);
}

TEST(Optimizer, NewtonSchulzIsNearOrthogonal) {
  torch::manual_seed(0);
  for (auto shape : {std::vector<int64_t>{16, 64}, std::vector<int64_t>{64, 16}}) {
    auto g = torch::randn(shape);
    auto o = yolo::newton_schulz_orthogonalize(g);
    auto sv = std::get<1>(torch::svd(o));
    // The quintic iteration drives singular values into roughly [0.7, 1.2], not exactly to 1.
    EXPECT_GT(sv.min().item<double>(), 0.6) << shape;
    EXPECT_LT(sv.max().item<double>(), 1.3) << shape;
    // Before: the raw gradient's singular values spread far wider.
    auto raw = std::get<1>(torch::svd(g / g.norm()));
    EXPECT_GT((raw.max() / raw.min()).item<double>(), 2.0);
  }
}

TEST(Optimizer, MuSGDAppliesMuonAndSgdTerms) {
  torch::manual_seed(0);
  auto w = torch::randn({4, 6}).requires_grad_(true);
  auto before = w.detach().clone();
  auto g = one_param_group("muon", w, 0.1, 0.9, 0);
  g.use_muon = true;
  yolo::OptimizerSettings s;
  yolo::Optimizer opt(yolo::OptimizerKind::kMuSGD, {g}, s);
  auto grad = torch::randn({4, 6});
  w.mutable_grad() = grad.clone();
  opt.step();
  // First step: Muon momentum m = 0.1 g, Nesterov u = g + 0.9 (m - g) = 0.19 g; SGD update
  // g + 0.9 g = 1.9 g. Rows < cols, so no shape scaling.
  auto muon = yolo::newton_schulz_orthogonalize(0.19 * grad);
  auto expected = before - 0.1 * s.muon_scale * muon - 0.1 * s.sgd_scale * 1.9 * grad;
  EXPECT_TRUE(torch::allclose(w.detach(), expected, 1e-4, 1e-5));
}

TEST(Optimizer, StateRoundTripsByParameterName) {
  auto p = torch::tensor({1.0}).requires_grad_(true);
  yolo::Optimizer a(yolo::OptimizerKind::kAdamW, {one_param_group("w", p, 0.01, 0.9, 0)});
  p.mutable_grad() = torch::tensor({0.5});
  a.step();
  auto q = p.detach().clone().requires_grad_(true);
  yolo::Optimizer b(yolo::OptimizerKind::kAdamW, {one_param_group("w", q, 0.5, 0.5, 0)});
  b.load_state(a.state());
  EXPECT_NEAR(b.groups()[0].lr, 0.01, 1e-12);
  p.mutable_grad() = torch::tensor({0.25});
  q.mutable_grad() = torch::tensor({0.25});
  a.step();
  b.step();
  EXPECT_NEAR(p.item<double>(), q.item<double>(), 1e-9);
  // A state for other groups is refused with a message.
  yolo::Optimizer c(yolo::OptimizerKind::kAdamW, {one_param_group("other", q, 0.5, 0.5, 0)});
  EXPECT_THROW(c.load_state(a.state()), std::runtime_error);
}

TEST(Optimizer, UltralyticsParameterGroups) {
  auto model = yolo::build_model("yolo11n.yaml", 3);
  auto groups = yolo::make_param_groups(*model, yolo::OptimizerKind::kSGD, 0.01, 0.937, 5e-4);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].name, "weight");
  EXPECT_EQ(groups[1].name, "bn");
  EXPECT_EQ(groups[2].name, "bias");
  EXPECT_DOUBLE_EQ(groups[0].weight_decay, 5e-4);
  EXPECT_DOUBLE_EQ(groups[1].weight_decay, 0);
  EXPECT_DOUBLE_EQ(groups[2].weight_decay, 0);
  for (const auto& n : groups[1].param_names) EXPECT_NE(n.find(".bn.weight"), std::string::npos);
  for (const auto& n : groups[2].param_names) EXPECT_NE(n.find("bias"), std::string::npos);
  size_t total = 0;
  for (const auto& g : groups) total += g.params.size();
  size_t trainable = 0;
  for (const auto& p : model->parameters())
    if (p.requires_grad()) ++trainable;
  EXPECT_EQ(total, trainable);

  auto mu = yolo::make_param_groups(*model, yolo::OptimizerKind::kMuSGD, 0.01, 0.9, 5e-4);
  ASSERT_EQ(mu.size(), 8u);
  for (const auto& g : mu) {
    const bool cls = g.name.find("+cls") != std::string::npos;
    EXPECT_DOUBLE_EQ(g.initial_lr, cls ? 0.03 : 0.01) << g.name;
    for (size_t i = 0; i < g.params.size(); ++i) {
      if (g.use_muon) {
        EXPECT_GE(g.params[i].dim(), 2);
      }
      if (cls) {
        EXPECT_EQ(g.param_names[i].rfind("model.23.cv3", 0), 0u) << g.param_names[i];
      }
    }
  }
  EXPECT_FALSE(mu[6].params.empty());  // muon+cls: the class branch's conv weights
}

TEST(Optimizer, AutoRule) {
  auto small = yolo::auto_optimizer(1000, 80);
  EXPECT_EQ(small.kind, yolo::OptimizerKind::kAdamW);
  EXPECT_DOUBLE_EQ(small.lr, 0.000119);
  EXPECT_DOUBLE_EQ(small.momentum, 0.9);
  EXPECT_DOUBLE_EQ(yolo::auto_optimizer(100, 3).lr, 0.001429);
  auto big = yolo::auto_optimizer(10001, 80);
  EXPECT_EQ(big.kind, yolo::OptimizerKind::kMuSGD);
  EXPECT_DOUBLE_EQ(big.lr, 0.01);
  EXPECT_THROW(yolo::parse_optimizer_kind("lion"), std::invalid_argument);
  EXPECT_EQ(yolo::parse_optimizer_kind("adamw"), yolo::OptimizerKind::kAdamW);
}

TEST(Schedule, LinearAndCosineFactors) {
  yolo::ScheduleOptions o;
  o.epochs = 100;
  o.lrf = 0.01;
  EXPECT_DOUBLE_EQ(yolo::lr_factor(o, 0), 1.0);
  EXPECT_NEAR(yolo::lr_factor(o, 50), 0.505, 1e-12);
  EXPECT_NEAR(yolo::lr_factor(o, 100), 0.01, 1e-12);
  o.cosine = true;
  EXPECT_NEAR(yolo::lr_factor(o, 0), 1.0, 1e-12);
  EXPECT_NEAR(yolo::lr_factor(o, 50), 0.505, 1e-12);
  EXPECT_NEAR(yolo::lr_factor(o, 25), 1 - (1 - std::cos(M_PI / 4)) / 2 * 0.99, 1e-12);
  EXPECT_NEAR(yolo::lr_factor(o, 100), 0.01, 1e-12);
}

TEST(Schedule, WarmupRampsLrMomentumAndAccumulation) {
  yolo::ScheduleOptions o;
  o.epochs = 10;
  o.batch = 16;
  // Ultralytics 8.4.190: round(min(warmup_epochs, epochs - 1) * nb), no 100-iteration floor.
  EXPECT_EQ(yolo::warmup_iterations(o, 4), 12);
  EXPECT_EQ(yolo::warmup_iterations(o, 50), 150);
  o.warmup_epochs = 2.5;
  EXPECT_EQ(yolo::warmup_iterations(o, 1), 2);  // round(2.5) -> 2 (half to even)
  o.epochs = 2;                                 // at most epochs - 1 = 1 epoch of warm-up
  EXPECT_EQ(yolo::warmup_iterations(o, 4), 4);
  o.epochs = 1;
  EXPECT_EQ(yolo::warmup_iterations(o, 4), 0);
  o.epochs = 10;
  o.warmup_epochs = 0;
  EXPECT_EQ(yolo::warmup_iterations(o, 50), 0);
  o.warmup_epochs = 3;
  EXPECT_EQ(yolo::nominal_accumulate(o), 4);
  EXPECT_EQ(yolo::accumulate_steps(o, 4), 4);
  o.epochs = 1;  // a 2-batch run: one step at its end, not none
  EXPECT_EQ(yolo::accumulate_steps(o, 2), 2);
  o.epochs = 10;

  auto w = torch::zeros({1}), b = torch::zeros({1});
  yolo::Optimizer opt(yolo::OptimizerKind::kSGD, {one_param_group("weight", w, 0.01, 0.937, 5e-4),
                                                  one_param_group("bias", b, 0.01, 0.937, 0)});
  EXPECT_EQ(yolo::apply_schedule(o, opt, 0, 100, 0, 4), 1);
  EXPECT_DOUBLE_EQ(opt.groups()[0].lr, 0.0);
  EXPECT_DOUBLE_EQ(opt.groups()[1].lr, 0.1);
  EXPECT_DOUBLE_EQ(opt.groups()[0].momentum, 0.8);
  EXPECT_EQ(yolo::apply_schedule(o, opt, 50, 100, 0, 4), 2);  // round(2.5) -> 2 (half to even)
  EXPECT_NEAR(opt.groups()[0].lr, 0.005, 1e-12);
  EXPECT_NEAR(opt.groups()[1].lr, 0.055, 1e-12);
  EXPECT_NEAR(opt.groups()[0].momentum, 0.8685, 1e-12);
  EXPECT_EQ(yolo::apply_schedule(o, opt, 100, 100, 0, 4), 4);  // ni == warmup: on target
  EXPECT_NEAR(opt.groups()[0].lr, 0.01, 1e-12);
  EXPECT_NEAR(opt.groups()[1].lr, 0.01, 1e-12);
  EXPECT_NEAR(opt.groups()[0].momentum, 0.937, 1e-12);
  // After warm-up: initial_lr * lf(epoch); epoch 5 of 10 -> 0.505.
  EXPECT_EQ(yolo::apply_schedule(o, opt, 500, 100, 5, 4), 4);
  EXPECT_NEAR(opt.groups()[0].lr, 0.01 * 0.505, 1e-12);
  EXPECT_NEAR(opt.groups()[1].lr, 0.01 * 0.505, 1e-12);
}

TEST(Ema, DecayFollowsUltralyticsRamp) {
  EXPECT_NEAR(yolo::ema_decay(100), 0.0488, 1e-4);
  EXPECT_NEAR(yolo::ema_decay(1000), 0.3935, 1e-4);
  EXPECT_NEAR(yolo::ema_decay(2000), 0.6321, 1e-4);
  EXPECT_NEAR(yolo::ema_decay(10000), 0.9932, 1e-4);
}

TEST(Ema, UpdateBlendsParametersAndBuffers) {
  auto model = yolo::build_model("yolov8n.yaml", 2);
  yolo::ModelEMA ema(*model);
  auto w = model->named_parameters()["model.0.conv.weight"];
  auto rm = model->named_buffers()["model.0.bn.running_mean"];
  const auto old_w = w.detach().clone(), old_rm = rm.clone();
  {
    torch::NoGradGuard no_grad;
    w.add_(1.0);
    rm.add_(2.0);
  }
  ema.update(*model);
  const double d = yolo::ema_decay(1);
  auto ew = ema.model().named_parameters()["model.0.conv.weight"];
  auto erm = ema.model().named_buffers()["model.0.bn.running_mean"];
  EXPECT_TRUE(torch::allclose(ew, d * old_w + (1 - d) * (old_w + 1), 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(erm, d * old_rm + (1 - d) * (old_rm + 2), 1e-5, 1e-6));
  EXPECT_EQ(ema.updates(), 1);
  EXPECT_FALSE(ew.requires_grad());
}

TEST(AmpCheck, DecisionOnInjectedOutputs) {
  auto fp32 = torch::tensor({{10.0, 20.0, 50.0, 60.0, 0.9, 1.0}});
  auto pass = yolo::decide_amp(fp32, fp32 + 0.3);
  EXPECT_TRUE(pass.enabled) << pass.reason;
  auto nan = fp32.clone();
  nan[0][2] = std::numeric_limits<float>::quiet_NaN();
  auto nan_result = yolo::decide_amp(fp32, nan);
  EXPECT_FALSE(nan_result.enabled);
  EXPECT_NE(nan_result.reason.find("NaN"), std::string::npos);
  EXPECT_NE(nan_result.reason.find("amp=False"), std::string::npos);
  auto off = yolo::decide_amp(fp32, fp32 + 2.0);
  EXPECT_FALSE(off.enabled);
  EXPECT_NE(off.reason.find("differ"), std::string::npos);
  auto shape = yolo::decide_amp(fp32, torch::zeros({2, 6}));
  EXPECT_FALSE(shape.enabled);
  EXPECT_NE(shape.reason.find("detections"), std::string::npos);
}

TEST(AmpCheck, Bf16ToleranceGrowsWithTheValue) {
  // A 300-pixel coordinate 2 px off is BF16's rounding (8 significant bits), not a broken model;
  // the same 2 px on a 10-pixel coordinate is not.
  auto fp32 = torch::tensor({{10.0, 20.0, 300.0, 310.0, 0.9, 1.0}});
  auto far_moved = fp32.clone();
  far_moved[0][2] = 302.0;
  EXPECT_FALSE(yolo::decide_amp(fp32, far_moved).enabled);
  EXPECT_TRUE(yolo::decide_amp(fp32, far_moved, 0.5, 0.01).enabled);
  auto near_moved = fp32.clone();
  near_moved[0][0] = 12.0;
  EXPECT_FALSE(yolo::decide_amp(fp32, near_moved, 0.5, 0.01).enabled);
}

TEST(AmpCheck, DeviceRules) {
  int calls = 0;
  auto detect = [&](bool) {
    ++calls;
    return torch::zeros({3, 6});
  };
  auto target = [](std::string type, std::string gpu, std::string bf16) {
    return yolo::AmpTarget{std::move(type), std::move(gpu), std::move(bf16), {}};
  };
  // A CPU without native BF16 stays in FP32 and says why, without running the model.
  auto cpu = yolo::check_amp(target("cpu", "", ""), detect);
  EXPECT_FALSE(cpu.enabled);
  EXPECT_NE(cpu.reason.find("no native BF16"), std::string::npos) << cpu.reason;
  EXPECT_NE(cpu.reason.find("FP32"), std::string::npos) << cpu.reason;
  EXPECT_EQ(calls, 0);
  // One whose BF16 oneDNN's cap rules out says that too.
  yolo::AmpTarget capped = target("cpu", "", "");
  capped.cpu_isa_cap = "ONEDNN_MAX_CPU_ISA=AVX512_CORE";
  const auto capped_cpu = yolo::check_amp(capped, detect);
  EXPECT_FALSE(capped_cpu.enabled);
  EXPECT_NE(capped_cpu.reason.find("ONEDNN_MAX_CPU_ISA=AVX512_CORE"), std::string::npos)
      << capped_cpu.reason;
  EXPECT_EQ(calls, 0);
  // One with it compares BF16 with FP32 and trains in BF16.
  auto bf16 = yolo::check_amp(target("cpu", "", "AVX-512 BF16"), detect);
  EXPECT_TRUE(bf16.enabled) << bf16.reason;
  EXPECT_EQ(bf16.dtype, c10::ScalarType::BFloat16);
  EXPECT_NE(bf16.reason.find("AVX-512 BF16"), std::string::npos) << bf16.reason;
  EXPECT_EQ(calls, 2);
  EXPECT_FALSE(yolo::check_amp(target("mps", "", ""), detect).enabled);
  EXPECT_FALSE(yolo::check_amp(target("cuda", "NVIDIA GeForce GTX 1660 Ti", ""), detect).enabled);
  EXPECT_EQ(calls, 2);
  auto gpu = yolo::check_amp(target("cuda", "AMD Radeon RX 7900 XTX", ""), detect);
  EXPECT_TRUE(gpu.enabled);
  EXPECT_EQ(gpu.dtype, c10::ScalarType::Half);
  EXPECT_EQ(calls, 4);
  auto failing =
      yolo::check_amp(target("cuda", "AMD Instinct MI210", ""), [](bool amp) -> torch::Tensor {
        if (amp) throw std::runtime_error("HIP error: invalid device function");
        return torch::zeros({1, 6});
      });
  EXPECT_FALSE(failing.enabled);
  EXPECT_NE(failing.reason.find("invalid device function"), std::string::npos);
  auto cpu_differs = yolo::check_amp(target("cpu", "", "AMX-BF16"), [](bool amp) {
    return amp ? torch::zeros({2, 6}) : torch::zeros({3, 6});
  });
  EXPECT_FALSE(cpu_differs.enabled);
  EXPECT_NE(cpu_differs.reason.find("amp=False"), std::string::npos);
}

TEST(MultiScale, SizesCoverTheRangeInStrideStepsAndRepeatForAnIteration) {
  std::set<int64_t> seen;
  for (int64_t ni = 0; ni < 300; ++ni) {
    const int64_t s = yolo::multi_scale_size(320, 0.5, 32, 7, ni);
    EXPECT_EQ(s % 32, 0) << s;
    EXPECT_GE(s, 160);
    EXPECT_LE(s, 480);
    EXPECT_EQ(s, yolo::multi_scale_size(320, 0.5, 32, 7, ni)) << "same (seed, ni), same size";
    seen.insert(s);
  }
  EXPECT_EQ(seen, (std::set<int64_t>{160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 480}));
  for (int64_t ni = 0; ni < 20; ++ni) EXPECT_EQ(yolo::multi_scale_size(320, 0.0, 32, 7, ni), 320);
}

TEST(MultiScale, BatchResizedToTheLongSideInStrideMultiples) {
  const torch::Tensor images = torch::rand({2, 3, 64, 96});
  const torch::Tensor bigger = yolo::resize_batch(images, 128, 32);
  EXPECT_EQ(bigger.sizes(), (std::vector<int64_t>{2, 3, 96, 128}));  // 85.3 rounded up to 96
  EXPECT_NEAR(bigger.mean().item<double>(), images.mean().item<double>(), 0.02);
  EXPECT_TRUE(yolo::resize_batch(images, 96, 32).is_same(images));
}
