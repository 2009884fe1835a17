// Where a CPU training step's time goes, and what changes it.
//
//   build/bin/bench_train_step [--model yolov8n.yaml] [--imgsz 320] [--batch 16] [--steps 4]
//                              [--threads N] [--only NAME] [--profile trace.json]   (--help)
//
// Builds real batches from a synthetic dataset (the trainer's loader with mosaic), then times the
// phases of the trainer's step -- forward, loss (assigner included), backward, gradient clipping,
// AdamW step, EMA update -- for several variants in one run, and prints a table with each
// variant's images/s and its ratio to the baseline (the trainer's step as it was).
#include <fmt/format.h>
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/torch.h>

#include <CLI/CLI.hpp>

#include <chrono>
#include <filesystem>
#include <string>

#include "bench_clock.h"
#include "yolo/core/allocator_tuning.h"
#include "yolo/core/autocast_scope.h"
#include "yolo/core/log.h"
#include "yolo/core/main_guard.h"
#include "yolo/core/system_info.h"
#include "yolo/models/detection_model.h"
#include "yolo/synth/synthetic_data.h"
#include "yolo/trainer/data/data_loader.h"
#include "yolo/trainer/train/loss.h"
#include "yolo/trainer/train/model_ema.h"
#include "yolo/trainer/train/optimizer.h"

namespace fs = std::filesystem;
using yolo::bench::Clock;
using yolo::bench::seconds_since;

namespace {

struct Args {
  std::string model = "yolov8n.yaml";
  int imgsz = 320, batch = 16, steps = 4, threads = 0;
  std::string out = "runs/bench/train_step";
  std::string only;     // run only the variants whose name contains this
  std::string profile;  // chrome trace of the baseline's counted steps
};

struct Phases {
  double forward = 0, loss = 0, backward = 0, clip = 0, step = 0, ema = 0;
  double total() const { return forward + loss + backward + clip + step + ema; }
};

struct Variant {
  std::string name;
  bool channels_last = false;
  bool onednn = true;  // false: LibTorch's own im2col + BLAS convolutions
  bool bf16 = false;   // BF16 autocast over the forward pass (the trainer's amp=True on the CPU)
};

// One variant's phases summed over args.steps steps after a warm-up step; a chrome trace of the
// counted steps when `profile`.
Phases time_variant(const Args& args, const Variant& v, int64_t nc,
                    const std::vector<yolo::Batch>& batches, bool profile) {
  at::globalContext().setUserEnabledMkldnn(v.onednn);
  torch::manual_seed(0);
  auto model = yolo::build_model(args.model, nc);
  if (v.channels_last) {
    torch::NoGradGuard no_grad;
    for (auto& w : model->parameters())
      if (w.dim() == 4) w.set_data(w.data().contiguous(torch::MemoryFormat::ChannelsLast));
  }
  model->train();
  auto& det = model->detect();
  yolo::DetectionLoss loss_fn(nc, det.reg_max, det.stride, {7.5, 0.5, 1.5});
  yolo::Optimizer opt(
      yolo::OptimizerKind::kAdamW,
      yolo::make_param_groups(*model, yolo::OptimizerKind::kAdamW, 0.001429, 0.9, 0.0005));
  yolo::ModelEMA ema(*model);
  Phases sum;
  std::unique_ptr<torch::autograd::profiler::RecordProfile> profiler;
  for (int i = -1; i < args.steps; ++i) {  // i = -1: warm-up, not counted
    if (i == 0 && profile)
      profiler = std::make_unique<torch::autograd::profiler::RecordProfile>(args.profile);
    const auto& b = batches[static_cast<size_t>(std::max(i, 0)) % batches.size()];
    Phases p;
    auto t = Clock::now();
    torch::Tensor x = b.images;
    if (v.channels_last) x = x.contiguous(torch::MemoryFormat::ChannelsLast);
    yolo::nn::DetectTrainOutput head;
    {
      yolo::AutocastScope autocast(c10::DeviceType::CPU, at::kBFloat16, v.bf16);
      head = model->forward_train(x);
    }
    p.forward = seconds_since(t), t = Clock::now();
    head = yolo::outputs_in_fp32(head);  // as the trainer: the loss in FP32
    auto [anchors, strides] = det.anchors_for(head.one2many.feats);
    const yolo::LossOutput loss = loss_fn(head.one2many, anchors, strides, b.targets);
    p.loss = seconds_since(t), t = Clock::now();
    loss.total.backward();
    p.backward = seconds_since(t), t = Clock::now();
    auto params = model->parameters();
    torch::nn::utils::clip_grad_norm_(params, 10.0);
    p.clip = seconds_since(t), t = Clock::now();
    opt.step();
    opt.zero_grad();
    p.step = seconds_since(t), t = Clock::now();
    ema.update(*model);
    p.ema = seconds_since(t);
    if (i < 0) continue;
    sum.forward += p.forward, sum.loss += p.loss, sum.backward += p.backward;
    sum.clip += p.clip, sum.step += p.step, sum.ema += p.ema;
  }
  return sum;
}

int run(int argc, char** argv) {
  Args args;
  CLI::App app{"bench_train_step: where a CPU training step's time goes (docs/benchmarks.md)"};
  app.add_option("--model", args.model, "model YAML")->capture_default_str();
  app.add_option("--imgsz", args.imgsz, "training image size")->capture_default_str();
  app.add_option("--batch", args.batch, "images per step")->capture_default_str();
  app.add_option("--steps", args.steps, "timed steps per variant")->capture_default_str();
  app.add_option("--threads", args.threads, "compute threads (0: all cores)")
      ->capture_default_str();
  app.add_option("--only", args.only, "run only the variants whose name contains this");
  app.add_option("--out", args.out, "folder for the synthetic data")->capture_default_str();
  app.add_option("--profile", args.profile, "write a chrome trace of the baseline's steps");
  CLI11_PARSE(app, argc, argv);
  yolo::keep_freed_memory_for_reuse();  // as `yolo-trainer train` does
  yolo::log::init();
  yolo::apply_thread_setting(args.threads);
  fs::create_directories(args.out);

  yolo::synth::SynthOptions so;
  so.dir = fs::path(args.out) / "data";
  so.train_images = args.batch * args.steps;
  so.val_images = 4;
  so.imgsz = args.imgsz;
  auto report = yolo::synth::generate_synthetic_dataset(so);
  auto cfg = yolo::load_dataset_config(report.yaml);
  auto scan = yolo::scan_dataset(yolo::list_images(cfg.splits.at("train")), cfg.nc, 2);
  yolo::LoaderOptions lo;
  lo.imgsz = args.imgsz;
  lo.batch = args.batch;
  lo.workers = 1;
  yolo::DataLoader loader(scan.images, lo);
  loader.start_epoch(0);
  std::vector<yolo::Batch> batches;
  while (auto b = loader.next()) batches.push_back(std::move(*b));

  const std::vector<Variant> variants = {{"baseline (contiguous NCHW)", false, true, false},
                                         {"channels_last", true, true, false},
                                         {"no oneDNN (im2col + BLAS)", false, false, false},
                                         {"BF16 autocast", false, true, true},
                                         {"channels_last + BF16 autocast", true, true, true}};
  struct Row {
    std::string name;
    Phases p;
  };
  std::vector<Row> rows;
  for (const auto& v : variants) {
    if (!args.only.empty() && v.name.find(args.only) == std::string::npos) continue;
    const Phases sum =
        time_variant(args, v, cfg.nc, batches, !args.profile.empty() && &v == &variants.front());
    rows.push_back({v.name, sum});
  }
  at::globalContext().setUserEnabledMkldnn(true);

  const double n = args.steps;
  fmt::print(
      "\nTraining step phases, {} nc={} imgsz {} batch {}, {} steps, {} threads (ms/step)\n\n",
      args.model, cfg.nc, args.imgsz, args.batch, args.steps, yolo::torch_threads());
  fmt::print("| {:<28} | {:>8} | {:>8} | {:>8} | {:>8} | {:>8} | {:>8} | {:>8} | {:>8} | {:>7} |\n",
             "variant", "forward", "loss", "backward", "clip", "AdamW", "EMA", "total", "img/s",
             "ratio");
  fmt::print("|{:-<30}|{:->10}|{:->10}|{:->10}|{:->10}|{:->10}|{:->10}|{:->10}|{:->10}|{:->9}|\n",
             "", "", "", "", "", "", "", "", "", "");
  if (rows.empty()) {
    fmt::print("no variant matches --only '{}'\n", args.only);
    return 1;
  }
  if (rows.front().name != variants.front().name)
    fmt::print("(--only left the baseline out: ratios are against the first row)\n\n");
  const double base_ips = n * args.batch / rows.front().p.total();
  for (const auto& r : rows) {
    const double ips = n * args.batch / r.p.total();
    fmt::print(
        "| {:<28} | {:>8.0f} | {:>8.0f} | {:>8.0f} | {:>8.0f} | {:>8.0f} | {:>8.0f} | {:>8.0f} | "
        "{:>8.1f} | {:>6.2f}x |\n",
        r.name, 1e3 * r.p.forward / n, 1e3 * r.p.loss / n, 1e3 * r.p.backward / n,
        1e3 * r.p.clip / n, 1e3 * r.p.step / n, 1e3 * r.p.ema / n, 1e3 * r.p.total() / n, ips,
        ips / base_ips);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return yolo::run_guarded([&] { return run(argc, argv); });
}
