// The inference levers of the runtime, each alone and combined, on the same input in one run.
//
//   build/bin/bench_inference [--models yolov8n.yaml,yolo26n.yaml] [--imgsz 320,640]
//                             [--batches 1,8] [--rounds 15] [--device cpu] [--out DIR]
//
// For each model (exported untrained by yolo-trainer's exporter: speed does not depend on the
// weights), input size and batch, Engine::forward runs under each variant in turn, round after
// round, so that a drift of the machine hits every variant alike: the module as loaded (not
// frozen), frozen (the runtime before these levers: the baseline), + channels-last, + BF16
// autocast (CPU) or FP16 (GPU, half=True), the two combined; on the CPU, with channels-last,
// each convolution fused with its SiLU into one oneDNN op (runtime/src/cpu_conv_fusion.h), with
// and without its weights prepacked, in FP32 and in BF16, with and without autocast around the
// fused graph (BF16 without it, fused and prepacked, is the runtime's default on a CPU with
// native BF16); on a GPU, each shape's pass captured once as a CUDA/HIP graph and replayed,
// alone, with channels-last and with channels-last + FP16 (runtime/src/gpu_graph.h;
// EngineOptions::gpu_graphs); and torch::jit::optimize_for_inference on the frozen module
// (oneDNN conversion; CPU).
// The table gives each variant's median time and its speed-up over the baseline as the median of
// the per-round ratios with their 10th-90th percentile range: a lever whose range holds 1.0x has
// no effect that the run can tell from noise. The table is also written to DIR/inference.md.
#include <fmt/format.h>
#include <torch/script.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>

#include "yolo/core/cpu_features.h"
#include "yolo/core/log.h"
#include "yolo/core/main_guard.h"
#include "yolo/core/system_info.h"
#include "yolo/models/checkpoint.h"
#include "yolo/models/detection_model.h"
#include "yolo/runtime/engine.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Variant {
  std::string name;
  std::function<torch::Tensor(const torch::Tensor&)> forward;
};

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

void synchronize(const c10::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

std::vector<Variant> variants_for(const fs::path& model, const std::string& device,
                                  std::vector<std::unique_ptr<yolo::Engine>>& engines,
                                  std::shared_ptr<torch::jit::Module>& optimized) {
  const bool gpu = device != "cpu";
  // Every lever off but freezing; each variant turns some on.
  yolo::EngineOptions plain;
  plain.device = device;
  plain.channels_last = plain.fuse_convolutions = plain.prepack_weights = false;
  plain.bf16 = false;
  using Lever = std::function<void(yolo::EngineOptions&)>;
  auto engine = [&](std::initializer_list<Lever> levers) {
    yolo::EngineOptions o = plain;
    for (const Lever& lever : levers) lever(o);
    engines.push_back(std::make_unique<yolo::Engine>(model.string(), o));
    yolo::Engine* e = engines.back().get();
    return [e](const torch::Tensor& x) { return e->forward(x); };
  };
  const Lever cl = [](yolo::EngineOptions& o) { o.channels_last = true; };
  const Lever reduced = [gpu](yolo::EngineOptions& o) {
    if (gpu)
      o.half = true;
    else
      o.bf16 = true;
  };
  const Lever fused = [](yolo::EngineOptions& o) { o.fuse_convolutions = true; };
  const Lever packed = [](yolo::EngineOptions& o) { o.prepack_weights = true; };
  const Lever autocast = [](yolo::EngineOptions& o) { o.keep_autocast = true; };
  const Lever graphs = [](yolo::EngineOptions& o) { o.gpu_graphs = true; };
  const std::string precision = gpu ? "FP16" : "BF16 autocast";
  std::vector<Variant> v = {
      {"frozen (baseline)", engine({})},
      {"not frozen", engine({[](yolo::EngineOptions& o) { o.freeze = false; }})},
      {"frozen + channels-last", engine({cl})},
      {"frozen + " + precision, engine({reduced})},
      {"frozen + channels-last + " + precision, engine({cl, reduced})},
  };
  if (gpu) {
    v.push_back({"frozen + GPU graphs", engine({graphs})});
    v.push_back({"frozen + channels-last + GPU graphs", engine({cl, graphs})});
    v.push_back(
        {"frozen + channels-last + FP16 + GPU graphs (half=True)", engine({cl, reduced, graphs})});
  } else {
    // The fusion applies with channels-last only (Engine: on NCHW it measured slower).
    v.push_back({"frozen + channels-last + fused conv+SiLU", engine({cl, fused})});
    v.push_back(
        {"frozen + channels-last + fused + prepacked weights", engine({cl, fused, packed})});
    v.push_back({"frozen + channels-last + BF16 + fused conv+SiLU", engine({cl, reduced, fused})});
    v.push_back({"frozen + channels-last + BF16 autocast + fused + prepacked weights",
                 engine({cl, reduced, fused, packed, autocast})});
    v.push_back({"frozen + channels-last + BF16 + fused + prepacked weights (default)",
                 engine({cl, reduced, fused, packed})});
    // Not serialisable, so a runtime would run it at every load; measured to say whether it
    // would be worth that.
    torch::jit::Module m = torch::jit::load(model.string(), torch::kCPU);
    m.eval();
    torch::jit::Module frozen = torch::jit::freeze(m);
    optimized = std::make_shared<torch::jit::Module>(torch::jit::optimize_for_inference(frozen));
    v.push_back({"optimize_for_inference", [m = optimized](const torch::Tensor& x) {
                   c10::InferenceMode g;
                   return m->forward({x}).toTensor();
                 }});
  }
  return v;
}

struct Row {
  std::string model, variant;
  int imgsz = 0, batch = 0;
  double ms = 0, ratio = 0, ratio_lo = 0, ratio_hi = 0;
};

std::vector<Row> measure(const std::string& model_yaml, int imgsz, int batch, int rounds,
                         const std::string& device, const fs::path& out) {
  const fs::path model =
      out / fmt::format("{}-{}.torchscript", fs::path(model_yaml).stem().string(), imgsz);
  if (!fs::exists(model)) {
    yolo::ExportOptions eo;
    eo.height = eo.width = imgsz;
    eo.include_weights = false;
    yolo::export_torchscript(*yolo::build_model(model_yaml), eo, model);
  }
  std::vector<std::unique_ptr<yolo::Engine>> engines;
  std::shared_ptr<torch::jit::Module> optimized;
  const std::vector<Variant> variants = variants_for(model, device, engines, optimized);
  const c10::Device dev(device);
  const torch::Tensor x = torch::rand({batch, 3, imgsz, imgsz}).to(dev);
  for (const Variant& v : variants) {  // warm-up at this batch size, GPU graphs captured
    for (int i = 0; i <= yolo::Engine::kGraphWarmupRuns; ++i) v.forward(x);
  }
  synchronize(dev);
  std::vector<std::vector<double>> ms(variants.size());
  for (int r = 0; r < rounds; ++r) {
    for (size_t i = 0; i < variants.size(); ++i) {
      const auto t0 = Clock::now();
      variants[i].forward(x);
      synchronize(dev);
      ms[i].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
  }
  std::vector<Row> rows;
  for (size_t i = 0; i < variants.size(); ++i) {
    std::vector<double> ratios;
    for (int r = 0; r < rounds; ++r) ratios.push_back(ms[0][r] / ms[i][r]);
    rows.push_back({fs::path(model_yaml).stem().string(), variants[i].name, imgsz, batch,
                    percentile(ms[i], 0.5), percentile(ratios, 0.5), percentile(ratios, 0.1),
                    percentile(ratios, 0.9)});
  }
  return rows;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<int> int_list(const std::string& text) {
  std::vector<int> out;
  for (const std::string& item : split_commas(text)) out.push_back(std::stoi(item));
  return out;
}

int run(int argc, char** argv) {
  yolo::log::init();
  std::string models = "yolov8n.yaml,yolo26n.yaml", sizes = "320,640", batches = "1,8";
  std::string device = "cpu";
  int rounds = 15;
  fs::path out = "runs/bench/inference";
  CLI::App app{"bench_inference: the runtime's inference levers, alone and combined"};
  app.add_option("--models", models, "model YAMLs, comma-separated")->capture_default_str();
  app.add_option("--imgsz", sizes, "input sizes, comma-separated")->capture_default_str();
  app.add_option("--batches", batches, "batch sizes, comma-separated")->capture_default_str();
  app.add_option("--rounds", rounds, "timed rounds (each runs every variant once)")
      ->capture_default_str()
      ->check(CLI::Range(3, 10000));
  app.add_option("--device", device, "cpu or cuda:N")->capture_default_str();
  app.add_option("--out", out, "folder for the exports and inference.md")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  yolo::apply_thread_setting(0);
  fs::create_directories(out);

  std::ostringstream table;
  table << fmt::format(
      "Inference levers, Engine::forward, {} ({} threads; CPU BF16: {}), median of {} "
      "alternating rounds; speed-up over frozen FP32 with its 10th-90th percentile range\n\n",
      device, yolo::torch_threads(), yolo::cpu_features().describe(), rounds);
  table << "| model | imgsz | batch | variant | ms | speed-up | range |\n";
  table << "|---|---:|---:|---|---:|---:|---|\n";
  for (const std::string& model : split_commas(models)) {
    for (int imgsz : int_list(sizes)) {
      for (int batch : int_list(batches)) {
        for (const Row& r : measure(model, imgsz, batch, rounds, device, out)) {
          table << fmt::format("| {} | {} | {} | {} | {:.2f} | {:.2f}x | {:.2f}-{:.2f}x |\n",
                               r.model, r.imgsz, r.batch, r.variant, r.ms, r.ratio, r.ratio_lo,
                               r.ratio_hi);
        }
        fmt::print(stderr, "measured {} at {} px, batch {}\n", model, imgsz, batch);
      }
    }
  }
  fmt::print("\n{}\n", table.str());
  std::ofstream(out / "inference.md") << table.str();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return yolo::run_guarded([&] { return run(argc, argv); });
}
