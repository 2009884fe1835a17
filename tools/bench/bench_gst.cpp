// Throughput of the `yolo` element in real pipelines against the bare runtime engine, on the
// same decoded frames, in one run.
//
//   build/bin/bench_gst [--imgsz 320] [--frames 150] [--streams 1,4] [--out DIR]
//
// Frames: the synthetic video (640x360 H.264, generated into DIR). Model: an untrained yolov8n
// exported at imgsz (speed does not depend on the weights; NMS load is kept comparable by a
// fixed conf-threshold). Rows:
//   (1) baseline: detect_images on the decoded BGR frames, one frame per call, no GStreamer;
//   (2) N streams: N x `filesrc ! decodebin ! videoconvert ! yolo ! fakesink` in one pipeline,
//       all sharing one model instance (batch-size N), decoding included.
// frames/s counts every stream's frames; the ratio is against (1).
#include <fmt/format.h>
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "yolo/core/log.h"
#include "yolo/core/main_guard.h"
#include "yolo/core/system_info.h"
#include "yolo/models/checkpoint.h"
#include "yolo/models/detection_model.h"
#include "yolo/runtime/engine.h"
#include "yolo/runtime/image_detect.h"
#include "yolo/synth/synthetic_data.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
  int imgsz = 320, frames = 150;
  std::vector<int> streams = {1, 4};
  fs::path out = "runs/bench/gst";
};

Args parse(int argc, char** argv) {
  Args a;
  CLI::App app{"bench_gst: the yolo element against appsink and the runtime"};
  app.add_option("--imgsz", a.imgsz, "model input size")->capture_default_str();
  app.add_option("--frames", a.frames, "frames per stream")->capture_default_str();
  app.add_option("--streams", a.streams, "stream counts to measure, comma-separated")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--out", a.out, "folder for the videos, model and table")->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  return a;
}

GstElement* launch(const std::string& description) {
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(description.c_str(), &error);
  if (error) {
    const std::string m = error->message;
    g_error_free(error);
    throw std::runtime_error("pipeline: " + m);
  }
  return pipeline;
}

// Plays the pipeline to EOS; returns seconds from PLAYING to EOS. Throws on ERROR.
double run_to_eos(GstElement* pipeline) {
  const auto t0 = Clock::now();
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* msg = gst_bus_timed_pop_filtered(
      bus, GST_CLOCK_TIME_NONE, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::string error;
  if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
    GError* e = nullptr;
    gst_message_parse_error(msg, &e, nullptr);
    error = e->message;
    g_error_free(e);
  }
  gst_message_unref(msg);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  if (!error.empty()) throw std::runtime_error(error);
  return s;
}

// The video decoded to BGR frames, as the pipelines see them after videoconvert.
std::vector<cv::Mat> decode(const fs::path& video) {
  GstElement* pipeline = launch("filesrc location=" + video.string() +
                                " ! decodebin ! videoconvert ! video/x-raw,format=BGR ! appsink "
                                "name=sink sync=false");
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  std::vector<cv::Mat> frames;
  while (GstSample* sample = gst_app_sink_pull_sample(GST_APP_SINK(sink))) {
    GstStructure* s = gst_caps_get_structure(gst_sample_get_caps(sample), 0);
    int w = 0, h = 0;
    gst_structure_get_int(s, "width", &w);
    gst_structure_get_int(s, "height", &h);
    GstMapInfo map;
    GstBuffer* buffer = gst_sample_get_buffer(sample);
    gst_buffer_map(buffer, &map, GST_MAP_READ);
    frames.push_back(cv::Mat(h, w, CV_8UC3, map.data).clone());
    gst_buffer_unmap(buffer, &map);
    gst_sample_unref(sample);
  }
  gst_object_unref(sink);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return frames;
}

int run(int argc, char** argv) {
  yolo::log::init();
  gst_init(&argc, &argv);
  const Args args = parse(argc, argv);
  yolo::apply_thread_setting(0);  // every core for LibTorch, as yolo-trainer does
  fs::create_directories(args.out);
  if (!gst_element_factory_find("yolo"))
    throw std::runtime_error(
        "the yolo element is not found: set GST_PLUGIN_PATH=<build>/gst-plugins");

  yolo::synth::SynthOptions so;
  so.dir = args.out / "synthetic";
  so.train_images = 0;
  so.val_images = 0;
  so.video = true;
  so.video_frames = args.frames;
  so.imgsz = 640;
  const fs::path video = yolo::synth::generate_synthetic_dataset(so).video;

  const fs::path model = args.out / ("yolov8n-" + std::to_string(args.imgsz) + ".torchscript");
  yolo::ExportOptions eo;
  eo.height = eo.width = args.imgsz;
  eo.include_weights = false;
  torch::manual_seed(0);
  yolo::export_torchscript(*yolo::build_model("yolov8n.yaml", 3), eo, model);
  const float conf = 0.25f;

  struct Row {
    std::string what;
    double fps;
  };
  std::vector<Row> rows;
  {
    const std::vector<cv::Mat> frames = decode(video);
    yolo::Engine engine(model.string(), {});
    yolo::NmsOptions nms;
    nms.conf = conf;
    const auto t0 = Clock::now();
    for (const cv::Mat& f : frames) yolo::detect_images(engine, {f}, nms);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    rows.push_back({fmt::format("detect_images, 1 frame per call ({} frames)", frames.size()),
                    static_cast<double>(frames.size()) / s});
  }
  for (int n : args.streams) {
    std::string description;
    for (int i = 0; i < n; ++i) {
      description += fmt::format(
          "filesrc location={} ! decodebin ! videoconvert ! yolo model={} conf-threshold={} "
          "model-instance-id=bench{} batch-size={} batch-timeout=20000 stream-id=s{} ! fakesink "
          "sync=false ",
          video.string(), model.string(), conf, n, n, i);
    }
    const double s = run_to_eos(launch(description));
    rows.push_back({fmt::format("{} stream{} through yolo (batch-size {})", n, n > 1 ? "s" : "", n),
                    static_cast<double>(n) * args.frames / s});
  }

  fmt::print(
      "\nyolo element vs bare engine: yolov8n (untrained) at {}, 640x360 H.264 video, {} "
      "frames per stream, CPU, {} threads\n\n",
      args.imgsz, args.frames, yolo::torch_threads());
  fmt::print("| {:<50} | {:>9} | {:>17} |\n", "what", "frames/s", "ratio to engine");
  fmt::print("|{:-<52}|{:->11}|{:->19}|\n", "", "", "");
  for (const auto& r : rows)
    fmt::print("| {:<50} | {:>9.1f} | {:>16.2f}x |\n", r.what, r.fps, r.fps / rows[0].fps);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return yolo::run_guarded([&] { return run(argc, argv); });
}
