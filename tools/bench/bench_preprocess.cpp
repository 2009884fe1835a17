// Preprocessing paths per 1080p frame, and what the dynamic batcher gains with many producers.
//
//   build/bin/bench_preprocess [--runs 30] [--seconds 4] [--imgsz 320] [--threads 0] [--out DIR]
//
// (1) One 1920x1080 frame to a (1, 3, 640, 640) input, median of --runs: the CPU reference
//     (letterbox + images_to_tensor on a BGR cv::Mat, the baseline), cv::cvtColor from NV12 and
//     then the same, and preprocess_frames() on BGR and NV12 frames on the "cpu" device (and on
//     "cuda:0" when a GPU is present, synchronised). Timed round-robin; ratios are against the
//     baseline.
// (2) One Engine (an untrained yolov8n exported at --imgsz) behind a DynamicBatcher (max_batch
//     8, 2 ms timeout), fed by 1, 2, 4 and 8 producer threads for --seconds each (two half
//     passes, 1-2-4-8 then 8-4-2-1, averaged). Each producer submits a ready input and waits
//     for its result before the next, as a camera stream waiting on its detections does.
//     Throughput and ratio are against 1 producer.
#include <fmt/format.h>
#include <torch/cuda.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <thread>
#include <vector>

#include "yolo/core/log.h"
#include "yolo/core/main_guard.h"
#include "yolo/core/system_info.h"
#include "yolo/models/detection_model.h"
#include "yolo/runtime/batcher.h"
#include "yolo/runtime/device_preprocess.h"
#include "yolo/runtime/engine.h"
#include "yolo/runtime/input_tensor.h"
#include "yolo/runtime/letterbox.h"
#include "yolo/runtime/mat_frame_view.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
  int runs = 30;
  double seconds = 4;
  int imgsz = 320;
  int threads = 0;  // torch (and OpenCV) threads; 0: all cores (the product's default)
  fs::path out = "runs/bench/preprocess";
};

Args parse(int argc, char** argv) {
  Args a;
  CLI::App app{"bench_preprocess: the preprocessing paths and dynamic batching"};
  app.add_option("--runs", a.runs, "timed runs per path")->capture_default_str();
  app.add_option("--seconds", a.seconds, "seconds per batching scenario")->capture_default_str();
  app.add_option("--imgsz", a.imgsz, "model input size")->capture_default_str();
  app.add_option("--threads", a.threads, "torch and OpenCV threads (0: all cores)")
      ->capture_default_str();
  app.add_option("--out", a.out, "folder for the model and the table")->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  return a;
}

struct Candidate {
  std::string what;
  std::function<void()> run;
  std::vector<double> ms;
};

// Times the candidates round-robin, `runs` rounds after one warm-up round (allocator, thread
// pools), so that drifts of this shared machine's speed hit all of them alike. Medians in ms.
std::vector<double> interleaved_medians(std::vector<Candidate>& candidates, int runs) {
  for (Candidate& c : candidates) c.run();
  for (int i = 0; i < runs; ++i) {
    for (Candidate& c : candidates) {
      const auto t0 = Clock::now();
      c.run();
      c.ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
  }
  std::vector<double> medians;
  for (Candidate& c : candidates) {
    std::sort(c.ms.begin(), c.ms.end());
    medians.push_back(c.ms[c.ms.size() / 2]);
  }
  return medians;
}

void preprocessing_table(int runs) {
  cv::Mat bgr(1080, 1920, CV_8UC3);
  cv::randu(bgr, 0, 256);
  cv::Mat nv12;  // (1080 * 3/2, 1920): the layout a decoder hands out, tightly packed
  cv::cvtColor(bgr, nv12, cv::COLOR_BGR2YUV_I420);
  {
    // I420 -> NV12: interleave the U and V planes.
    cv::Mat u(540, 960, CV_8UC1, nv12.data + 1920 * 1080);
    cv::Mat v(540, 960, CV_8UC1, nv12.data + 1920 * 1080 + 960 * 540);
    cv::Mat uv;
    cv::merge(std::vector<cv::Mat>{u, v}, uv);
    uv.reshape(1, 540).copyTo(cv::Mat(540, 1920, CV_8UC1, nv12.data + 1920 * 1080));
  }
  const size_t offsets[2] = {0, 1920 * 1080};
  const int strides[2] = {1920, 1920};
  const yolo::FrameView bgr_view = yolo::frame_view_of_mat(bgr);
  const yolo::FrameView nv12_view = yolo::FrameView::from_offsets(
      yolo::PixelFormat::kNV12, 1920, 1080, nv12.data, offsets, strides);
  yolo::LetterboxOptions lb;  // 640 x 640

  std::vector<Candidate> rows;
  rows.push_back({"CPU letterbox + tensor, BGR (baseline)",
                  [&] { yolo::images_to_tensor({yolo::letterbox(bgr, lb)}); },
                  {}});
  rows.push_back({"cvtColor NV12 + CPU letterbox + tensor",
                  [&] {
                    cv::Mat converted;
                    cv::cvtColor(nv12, converted, cv::COLOR_YUV2BGR_NV12);
                    yolo::images_to_tensor({yolo::letterbox(converted, lb)});
                  },
                  {}});
  std::vector<std::string> devices = {"cpu"};
  if (torch::cuda::is_available()) devices.push_back("cuda:0");
  for (const std::string& device : devices) {
    yolo::DevicePreprocessOptions o;
    o.letterbox = lb;
    o.device = torch::Device(device);
    for (const auto& [name, view] : {std::pair{"BGR", bgr_view}, std::pair{"NV12", nv12_view}}) {
      rows.push_back({fmt::format("preprocess_frames, {}, device {}", name, device),
                      [o, v = view] {
                        yolo::preprocess_frames({v}, o);
                        if (o.device.is_cuda()) torch::cuda::synchronize();
                      },
                      {}});
    }
  }
  const std::vector<double> ms = interleaved_medians(rows, runs);
  fmt::print(
      "\nPreprocessing one 1920x1080 frame to (1, 3, 640, 640) float, {} torch threads, "
      "median of {}\n\n",
      yolo::torch_threads(), runs);
  fmt::print("| {:<42} | {:>8} | {:>17} |\n", "what", "ms", "ratio to baseline");
  fmt::print("|{:-<44}|{:->10}|{:->19}|\n", "", "", "");
  for (size_t i = 0; i < rows.size(); ++i) {
    fmt::print("| {:<42} | {:>8.2f} | {:>16.2f}x |\n", rows[i].what, ms[i], ms[i] / ms[0]);
  }
}

struct BatchingResult {
  int producers;
  double frames_per_s, mean_batch, mean_wait_ms;
};

// `producers` threads, each submitting one frame and waiting for its result, for `seconds`.
BatchingResult run_producers(yolo::Engine& engine, int producers, double seconds) {
  yolo::BatcherOptions bo;
  bo.max_batch = 8;
  bo.batch_timeout = std::chrono::microseconds(2000);
  bo.queue_capacity = 4;
  yolo::DynamicBatcher batcher([&](const torch::Tensor& x) { return engine.forward(x); }, bo);
  const torch::Tensor frame = torch::rand({3, engine.input_height(), engine.input_width()});
  std::atomic<bool> stop{false};
  std::atomic<int64_t> done{0};
  std::vector<std::thread> threads;
  const auto t0 = Clock::now();
  for (int p = 0; p < producers; ++p) {
    const int id = batcher.add_producer(fmt::format("stream-{}", p), yolo::QueueFullPolicy::kBlock);
    threads.emplace_back([&, id] {
      while (!stop.load()) {
        batcher.submit(id, frame).get();
        done.fetch_add(1);
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (std::thread& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  const yolo::BatcherStats s = batcher.stats();
  return {producers, static_cast<double>(done.load()) / elapsed,
          s.batches ? static_cast<double>(s.inferred) / static_cast<double>(s.batches) : 0.0,
          s.mean_queue_wait_us / 1000.0};
}

void batching_table(const Args& a) {
  fs::create_directories(a.out);
  const fs::path model_path = a.out / fmt::format("yolov8n_{}.torchscript", a.imgsz);
  yolo::ExportOptions eo;
  eo.height = eo.width = a.imgsz;
  eo.include_weights = false;
  yolo::export_torchscript(*yolo::build_model("yolov8n.yaml"), eo, model_path);
  yolo::Engine engine(model_path.string(), {});
  // Warm-up at every batch size the batcher can form, so graph specialisation stays out of it.
  for (int b = 1; b <= 8; ++b) engine.forward(torch::rand({b, 3, a.imgsz, a.imgsz}));

  // Two half-length passes in opposite orders, averaged, so that a drift of the machine's speed
  // during the run hits every producer count alike.
  const std::vector<int> counts = {1, 2, 4, 8};
  std::vector<BatchingResult> rows;
  for (int p : counts) rows.push_back(run_producers(engine, p, a.seconds / 2));
  for (size_t i = counts.size(); i-- > 0;) {
    const BatchingResult second = run_producers(engine, counts[i], a.seconds / 2);
    rows[i].frames_per_s = (rows[i].frames_per_s + second.frames_per_s) / 2;
    rows[i].mean_batch = (rows[i].mean_batch + second.mean_batch) / 2;
    rows[i].mean_wait_ms = (rows[i].mean_wait_ms + second.mean_wait_ms) / 2;
  }
  fmt::print(
      "\nDynamicBatcher (max_batch 8, 2 ms timeout) feeding one Engine, yolov8n "
      "(untrained) at {}, {} torch threads, BLAS: {}, {} s per row\n\n",
      a.imgsz, yolo::torch_threads(), yolo::query_blas().name, a.seconds);
  fmt::print("| {:>9} | {:>8} | {:>10} | {:>13} | {:>16} |\n", "producers", "frames/s",
             "mean batch", "queue wait ms", "ratio to 1 prod.");
  fmt::print("|{:->11}|{:->10}|{:->12}|{:->15}|{:->18}|\n", "", "", "", "", "");
  for (const BatchingResult& r : rows) {
    fmt::print("| {:>9} | {:>8.1f} | {:>10.2f} | {:>13.2f} | {:>15.2f}x |\n", r.producers,
               r.frames_per_s, r.mean_batch, r.mean_wait_ms, r.frames_per_s / rows[0].frames_per_s);
  }
}

int run(int argc, char** argv) {
  yolo::log::init();
  const Args a = parse(argc, argv);
  yolo::apply_thread_setting(a.threads);
  if (a.threads > 0) cv::setNumThreads(a.threads);  // the CPU reference's resize is parallel too
  preprocessing_table(a.runs);
  batching_table(a);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return yolo::run_guarded([&] { return run(argc, argv); });
}
