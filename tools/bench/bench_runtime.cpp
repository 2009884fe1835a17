// Runtime overhead against the bare TorchScript forward, and NMS / preprocessing costs.
//
//   build/bin/bench_runtime [--imgsz 640] [--runs 10] [--out DIR]
//
// In one run, on the same frames: (1) the bare module forward of an exported yolov8n on a
// ready input tensor (baseline), (2) Engine::forward on the same tensor, (3) detect_images on a
// 1080p BGR frame (letterbox + tensor + forward + NMS + back-mapping), plus NMS alone on a
// (1, 84, 8400) output with random scores and letterbox alone on a 1080p frame. Ratios are
// against (1).
#include <fmt/format.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <filesystem>
#include <opencv2/core.hpp>

#include "yolo/core/log.h"
#include "yolo/core/main_guard.h"
#include "yolo/core/system_info.h"
#include "yolo/runtime/engine.h"
#include "yolo/runtime/image_detect.h"
#include "yolo/runtime/input_tensor.h"
#include "yolo/runtime/letterbox.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

template <typename Fn>
double median_ms(int runs, Fn&& fn) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    auto t0 = Clock::now();
    fn();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int run(int argc, char** argv) {
  yolo::log::init();
  int imgsz = 640, runs = 10;
  fs::path out = "runs/bench/runtime";
  CLI::App app{"bench_runtime: the runtime against the bare TorchScript forward"};
  app.add_option("--imgsz", imgsz, "model input size")->capture_default_str();
  app.add_option("--runs", runs, "timed runs")->capture_default_str();
  app.add_option("--out", out, "folder for the model and the table")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  yolo::apply_thread_setting(0);
  const fs::path model_path = out / "yolov8n.torchscript";
  yolo::ExportOptions eo;
  eo.height = eo.width = imgsz;
  eo.include_weights = false;
  yolo::export_torchscript(*yolo::build_model("yolov8n.yaml"), eo, model_path);

  torch::jit::Module bare = torch::jit::load(model_path.string(), torch::kCPU);
  bare.eval();
  yolo::Engine engine(model_path.string(), {});
  torch::Tensor x = torch::rand({1, 3, imgsz, imgsz});
  cv::Mat frame(1080, 1920, CV_8UC3);
  cv::randu(frame, 0, 255);
  yolo::NmsOptions nms;
  torch::Tensor raw =
      torch::cat({torch::rand({1, 4, 8400}) * imgsz, torch::rand({1, 80, 8400}) * 0.3}, 1);
  yolo::LetterboxOptions lb;
  lb.height = lb.width = imgsz;

  // Warm-up for the bare module (the engine warms up at load).
  for (int i = 0; i < 2; ++i) {
    c10::InferenceMode g;
    bare.forward({x});
  }
  struct Row {
    std::string what;
    double ms;
  };
  std::vector<Row> rows;
  // Bare and engine forwards alternate, so that drifts of the machine hit both alike.
  std::vector<double> bare_ms, engine_ms;
  for (int i = 0; i < runs; ++i) {
    bare_ms.push_back(median_ms(1, [&] {
      c10::InferenceMode g;
      bare.forward({x});
    }));
    engine_ms.push_back(median_ms(1, [&] { engine.forward(x); }));
  }
  std::sort(bare_ms.begin(), bare_ms.end());
  std::sort(engine_ms.begin(), engine_ms.end());
  rows.push_back({"bare TorchScript forward (baseline)", bare_ms[runs / 2]});
  rows.push_back({"Engine::forward (frozen)", engine_ms[runs / 2]});
  rows.push_back({"detect_images, 1080p frame",
                  median_ms(runs, [&] { yolo::detect_images(engine, {frame}, nms); })});
  rows.push_back({"NMS, 8400 anchors x 80 classes",
                  median_ms(runs, [&] { yolo::non_max_suppression(raw, nms, false); })});
  rows.push_back({"letterbox + tensor, 1080p frame",
                  median_ms(runs, [&] { yolo::images_to_tensor({yolo::letterbox(frame, lb)}); })});

  fmt::print(
      "\nRuntime vs bare forward, yolov8n (untrained), imgsz {}, CPU, {} threads, median of {}\n\n",
      imgsz, yolo::torch_threads(), runs);
  fmt::print("| {:<36} | {:>9} | {:>15} |\n", "what", "ms", "ratio to bare");
  fmt::print("|{:-<38}|{:->11}|{:->17}|\n", "", "", "");
  for (const auto& r : rows) {
    fmt::print("| {:<36} | {:>9.2f} | {:>14.3f}x |\n", r.what, r.ms, r.ms / rows[0].ms);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return yolo::run_guarded([&] { return run(argc, argv); });
}
