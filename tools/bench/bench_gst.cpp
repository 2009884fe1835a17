// Throughput of the `yolo` element in real pipelines against the bare runtime engine, on the
// same decoded frames, in one run.
//
//   build/bin/bench_gst [--imgsz 320] [--frames 150] [--streams 1,4] [--out DIR]
//                       [--model FILE --video FILE --conf 0.1]
//                       [--trackers bytetrack.yaml,botsort.yaml] [--rounds 3]
//                       [--analytics lines.yaml [--mqtt-url mqtt://127.0.0.1:1883]]
//
// Frames: the synthetic video (640x360 H.264, generated into DIR), or --video. Model: an
// untrained yolov8n exported at imgsz (speed does not depend on the weights; NMS load is kept
// comparable by a fixed conf-threshold), or --model (a trained export, so that the tracker
// rows see real objects). Rows:
//   (1) baseline: detect_images on the decoded BGR frames, one frame per call, no GStreamer, on
//       the main thread after the pipelines (the engine's best case: see engine_baseline);
//   (2) N streams: N x `filesrc ! decodebin ! videoconvert ! yolo ! fakesink` in one pipeline,
//       all sharing one model instance (batch-size N), decoding included, as fast as they go;
//       then the same paced as live cameras (`identity sync=true` before `yolo`) at half the
//       frames/s per stream that row reached, so that the element is not saturated: per-frame
//       latency through `yolo` (its sink pad to its src pad, batching wait included), p50 and
//       p99 over every frame of every stream (the paced rows use the synthetic video).
//   (3) tracking: 1 stream `... ! yolo ! fakesink` against `... ! yolo ! yolotracker
//       tracker=T ! fakesink` for each T and, with --analytics (and --mqtt-url), with
//       yoloanalytics (and yolopublish) after ByteTrack, run in alternating rounds (medians),
//       so that each stage's cost is told apart from the machine's drift;
//   (4) rect (--rect-rounds N > 0): 1 stream through `yolo rect=false` (the square input)
//       against `yolo rect=true` (the frame's smallest stride-multiple rectangle: 640x384 for
//       a 16:9 video at 640), in N alternating rounds, on an untrained training checkpoint at
//       --imgsz (a fixed-shape export runs square only) or on --model.
// frames/s counts every stream's frames; the ratio is against (1), and in (3) against the
// untracked pipeline.
#include <fmt/format.h>
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "yolo/core/log.h"
#include "yolo/core/main_guard.h"
#include "yolo/core/serial_torch_ops.h"
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
  int imgsz = 320, frames = 150, rounds = 3, rect_rounds = 0;
  float conf = 0.25f;
  std::vector<int> streams = {1, 4};
  std::vector<std::string> trackers = {"bytetrack.yaml", "botsort.yaml"};
  fs::path out = "runs/bench/gst", model, video, analytics;
  std::string mqtt_url;
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
  app.add_option("--model", a.model, "a TorchScript export to run instead of the untrained one")
      ->check(CLI::ExistingFile);
  app.add_option("--video", a.video, "a video to read instead of the synthetic one")
      ->check(CLI::ExistingFile);
  app.add_option("--conf", a.conf, "confidence threshold (0.1 is what tracking runs with)")
      ->capture_default_str();
  app.add_option("--trackers", a.trackers,
                 "tracker settings for the tracking rows, comma-separated (none: skip them)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--analytics", a.analytics,
                 "lines and zones (docs/analytics.md): adds rows with yoloanalytics after "
                 "yolotracker")
      ->check(CLI::ExistingFile);
  app.add_option("--mqtt-url", a.mqtt_url,
                 "with --analytics: adds a row that also publishes every frame (yolopublish)");
  app.add_option("--rect-rounds", a.rect_rounds,
                 "alternating rounds of rect=false against rect=true (0: skip them)")
      ->capture_default_str();
  app.add_option("--rounds", a.rounds, "alternating rounds of the tracking rows (median)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  if (a.trackers == std::vector<std::string>{"none"}) a.trackers.clear();
  return a;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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

// Per-frame latency through one element: the time a buffer enters its sink pad, by PTS, and the
// time the buffer of that PTS leaves its src pad. The element keeps PTS and order.
struct LatencyProbe {
  std::mutex mutex;
  std::map<GstClockTime, Clock::time_point> entered;
  std::vector<double> ms;
  std::vector<Clock::time_point> left;  // when each buffer left, in order
};

GstPadProbeReturn on_enter(GstPad*, GstPadProbeInfo* info, gpointer data) {
  auto* probe = static_cast<LatencyProbe*>(data);
  const GstClockTime pts = GST_BUFFER_PTS(GST_PAD_PROBE_INFO_BUFFER(info));
  std::lock_guard<std::mutex> lock(probe->mutex);
  probe->entered[pts] = Clock::now();
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn on_leave(GstPad*, GstPadProbeInfo* info, gpointer data) {
  auto* probe = static_cast<LatencyProbe*>(data);
  const GstClockTime pts = GST_BUFFER_PTS(GST_PAD_PROBE_INFO_BUFFER(info));
  std::lock_guard<std::mutex> lock(probe->mutex);
  probe->left.push_back(Clock::now());
  const auto it = probe->entered.find(pts);
  if (it != probe->entered.end()) {
    probe->ms.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - it->second).count());
    probe->entered.erase(it);
  }
  return GST_PAD_PROBE_OK;
}

// Probes on the elements named yolo0, yolo1, ... of `pipeline` (one per stream).
std::vector<std::unique_ptr<LatencyProbe>> probe_latency(GstElement* pipeline, int streams) {
  std::vector<std::unique_ptr<LatencyProbe>> probes;
  for (int i = 0; i < streams; ++i) {
    GstElement* e = gst_bin_get_by_name(GST_BIN(pipeline), fmt::format("yolo{}", i).c_str());
    if (!e) throw std::runtime_error(fmt::format("no element yolo{} in the pipeline", i));
    probes.push_back(std::make_unique<LatencyProbe>());
    GstPad* sink = gst_element_get_static_pad(e, "sink");
    GstPad* src = gst_element_get_static_pad(e, "src");
    gst_pad_add_probe(sink, GST_PAD_PROBE_TYPE_BUFFER, on_enter, probes.back().get(), nullptr);
    gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, on_leave, probes.back().get(), nullptr);
    gst_object_unref(sink);
    gst_object_unref(src);
    gst_object_unref(e);
  }
  return probes;
}

// Frames/s once running: frames out of every probed element after the first one, over the time
// from the first to the last (the model's load and warm-up, before the first frame leaves, are
// not counted; the baseline row does not count its engine's load either).
double steady_fps(const std::vector<std::unique_ptr<LatencyProbe>>& probes) {
  std::vector<Clock::time_point> t;
  for (const auto& p : probes) t.insert(t.end(), p->left.begin(), p->left.end());
  if (t.size() < 2) return 0;
  std::sort(t.begin(), t.end());
  return static_cast<double>(t.size() - 1) /
         std::chrono::duration<double>(t.back() - t.front()).count();
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

// The process's peak resident memory (VmHWM), MiB.
double peak_rss_mib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      double kib = 0;
      status >> kib;
      return kib / 1024.0;
    }
    status.ignore(4096, '\n');
  }
  return 0;
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

struct Row {
  std::string what;
  double fps;
  double ratio = 1, ratio_min = 1, ratio_max = 1;  // staged rows: paired per round
  double p50_ms = 0, p99_ms = 0;                   // paced rows: latency through `yolo`
};

// N copies of `filesrc ! decodebin ! videoconvert [! identity sync=true] ! yolo ! fakesink`
// sharing one model instance; the yolo elements are named yolo0, yolo1, ...
std::string streams_pipeline(const fs::path& video, const fs::path& model, float conf, int n,
                             bool paced, const std::string& instance) {
  std::string description;
  for (int i = 0; i < n; ++i) {
    description += fmt::format(
        "filesrc location={} ! decodebin ! videoconvert ! {}yolo name=yolo{} model={} "
        "conf-threshold={} model-instance-id={} batch-size={} batch-timeout=20000 stream-id=s{} "
        "! fakesink sync=false ",
        video.string(), paced ? "identity sync=true ! " : "", i, model.string(), conf, instance, n,
        i);
  }
  return description;
}

// The synthetic 640x360 video at `fps` (the frames are the same at every rate).
fs::path synthetic_video(const fs::path& dir, int frames, int fps) {
  yolo::synth::SynthOptions so;
  so.dir = dir;
  so.train_images = 0;
  so.val_images = 0;
  so.video = true;
  so.video_frames = frames;
  so.video_fps = fps;
  so.imgsz = 640;
  return yolo::synth::generate_synthetic_dataset(so).video;
}

// A streams_pipeline() played to EOS with latency probes on its n yolo elements.
struct ProbedRun {
  double seconds;  // from PLAYING to EOS
  std::vector<std::unique_ptr<LatencyProbe>> probes;
};

ProbedRun run_probed(const std::string& description, int n) {
  GstElement* pipeline = launch(description);
  gst_object_ref(pipeline);  // run_to_eos releases one reference; the probes outlive it
  ProbedRun run{0, probe_latency(pipeline, n)};
  run.seconds = run_to_eos(pipeline);
  gst_object_unref(pipeline);
  return run;
}

// Latency as a live source sees it: the streams paced at `fps` each.
Row paced_row(const fs::path& video, const fs::path& model, float conf, int n, int fps) {
  const ProbedRun run =
      run_probed(streams_pipeline(video, model, conf, n, true, fmt::format("paced{}", n)), n);
  const auto& probes = run.probes;
  std::vector<double> all;
  for (const auto& p : probes) all.insert(all.end(), p->ms.begin(), p->ms.end());
  Row r{fmt::format("{} stream{} paced at {} frames/s each", n, n > 1 ? "s" : "", fps),
        steady_fps(probes)};
  r.p50_ms = percentile(all, 0.5);
  r.p99_ms = percentile(all, 0.99);
  return r;
}

// The one-stream pipeline with nothing, each tracker, and (with --analytics, --mqtt-url)
// yoloanalytics and yolopublish after `yolo`, in alternating rounds; frames/s medians and each
// variant's ratios to the bare pipeline of the same round.
std::vector<Row> staged_rows(const Args& args, const fs::path& video, const fs::path& model,
                             size_t frame_count) {
  const float conf = args.conf;
  std::vector<Row> tracking_rows;
  if (!gst_element_factory_find("yolotracker"))
    throw std::runtime_error("the yolotracker element is not found in GST_PLUGIN_PATH");
  // Each variant: its label and what follows `yolo` (the first is the bare pipeline).
  struct Variant {
    std::string label, chain;
  };
  std::vector<Variant> variants = {{"yolo only", ""}};
  for (const auto& t : args.trackers)
    variants.push_back({"yolo ! yolotracker tracker=" + t, "! yolotracker tracker=" + t + " "});
  const std::string tracked = "! yolotracker tracker=bytetrack.yaml ";
  if (!args.analytics.empty()) {
    const std::string analyse =
        tracked + "! yoloanalytics stream-id=bench config=" + args.analytics.string() + " ";
    variants.push_back({"... ! yolotracker bytetrack ! yoloanalytics", analyse});
    if (!args.mqtt_url.empty()) {
      variants.push_back({"... ! yoloanalytics ! yolopublish detections-every=1",
                          analyse +
                              "! yolopublish topic=bench device-id=bench detections-every=1 url=" +
                              args.mqtt_url + " "});
    }
  }
  auto pipeline = [&](size_t v) {
    return fmt::format(
        "filesrc location={} ! decodebin ! videoconvert ! yolo model={} conf-threshold={} "
        "model-instance-id=variant{} {}! fakesink sync=false",
        video.string(), model.string(), conf, v, variants[v].chain);
  };
  std::vector<std::vector<double>> fps(variants.size());
  for (int r = 0; r < args.rounds; ++r) {
    for (size_t v = 0; v < variants.size(); ++v) {
      const double s = run_to_eos(launch(pipeline(v)));
      fps[v].push_back(static_cast<double>(frame_count) / s);
      fmt::print(stderr, "round {}/{}: {:<48} {:.2f} frames/s\n", r + 1, args.rounds,
                 variants[v].label, fps[v].back());
    }
  }
  for (size_t v = 0; v < variants.size(); ++v) {
    // Each round's ratio to the untracked run of the same round: the machine's drift between
    // rounds cancels, and the spread of these ratios is the noise a claim must beat.
    std::vector<double> paired;
    for (int r = 0; r < args.rounds; ++r) paired.push_back(fps[v][r] / fps[0][r]);
    tracking_rows.push_back({"1 stream, " + variants[v].label, median(fps[v]), median(paired),
                             *std::min_element(paired.begin(), paired.end()),
                             *std::max_element(paired.begin(), paired.end())});
  }
  return tracking_rows;
}

// An untrained yolov8n exported at --imgsz, on a thread of its own: the main thread must not hold
// LibTorch's CPU workers while the pipelines run (yolo/core/serial_torch_ops.h).
// With `checkpoint`, as the trainer writes it (its weights in: it runs rectangular inputs too).
fs::path export_untrained(const Args& args, bool checkpoint = false) {
  const fs::path model =
      args.out / ("yolov8n-" + std::to_string(args.imgsz) + (checkpoint ? ".pt" : ".torchscript"));
  yolo::run_on_own_thread([&] {
    yolo::ExportOptions eo;
    eo.height = eo.width = args.imgsz;
    eo.include_weights = checkpoint;
    torch::manual_seed(0);
    yolo::export_torchscript(*yolo::build_model("yolov8n.yaml", 3), eo, model);
  });
  return model;
}

// 1 stream through `yolo rect=false` and `yolo rect=true`, alternating; the rect row's ratio is
// to the square run of the same round.
std::vector<Row> rect_rows(const Args& args, const fs::path& video) {
  const fs::path model = args.model.empty() ? export_untrained(args, true) : args.model;
  std::vector<double> fps[2];
  for (int r = 0; r < args.rect_rounds; ++r) {
    for (const bool rect : {false, true}) {
      // Steady frames/s (the probes' own clock), so that tracing the rectangle once at start
      // does not count against it.
      const ProbedRun run = run_probed(
          fmt::format("filesrc location={} ! decodebin ! videoconvert ! yolo name=yolo0 model={} "
                      "conf-threshold={} rect={} ! fakesink sync=false",
                      video.string(), model.string(), args.conf, rect ? "true" : "false"),
          1);
      fps[rect].push_back(steady_fps(run.probes));
      fmt::print(stderr, "round {}/{}: rect={} {:.2f} frames/s\n", r + 1, args.rect_rounds, rect,
                 fps[rect].back());
    }
  }
  std::vector<double> paired;
  for (int r = 0; r < args.rect_rounds; ++r) paired.push_back(fps[1][r] / fps[0][r]);
  return {{"1 stream, rect=false (square input)", median(fps[0])},
          {"1 stream, rect=true (the frame's rectangle)", median(fps[1]), median(paired),
           *std::min_element(paired.begin(), paired.end()),
           *std::max_element(paired.begin(), paired.end())}};
}

// rect_rows() as a table: frames/s and the rect row's paired ratio to the square.
void print_rect_table(const std::vector<Row>& rows, const cv::Mat& frame, int rounds) {
  fmt::print("\nrect against square ({}x{} frames): medians of {} alternating rounds\n\n",
             frame.cols, frame.rows, rounds);
  fmt::print("| {:<56} | {:>9} | {:>28} |\n", "what", "frames/s", "paired ratio, median (range)");
  fmt::print("|{:-<58}|{:->11}|{:->30}|\n", "", "", "");
  for (const auto& r : rows)
    fmt::print("| {:<56} | {:>9.2f} | {:>28} |\n", r.what, r.fps,
               fmt::format("{:.3f}x ({:.3f}-{:.3f})", r.ratio, r.ratio_min, r.ratio_max));
}

// detect_images on the decoded frames, one frame per call, no GStreamer.
Row engine_baseline(const fs::path& model, const std::vector<cv::Mat>& frames, float conf) {
  yolo::Engine engine(model.string(), {});
  yolo::NmsOptions nms;
  nms.conf = conf;
  const auto t0 = Clock::now();
  for (const cv::Mat& f : frames) yolo::detect_images(engine, {f}, nms);
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  return {fmt::format("detect_images, 1 frame per call ({} frames)", frames.size()),
          static_cast<double>(frames.size()) / s};
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

  fs::path video = args.video;
  if (video.empty()) video = synthetic_video(args.out / "synthetic", args.frames, 30);

  const fs::path model = args.model.empty() ? export_untrained(args) : fs::path(args.model);
  const float conf = args.conf;
  const std::vector<cv::Mat> frames = decode(video);
  const size_t frame_count = frames.size();
  std::vector<Row> rows;
  std::vector<Row> paced_rows;
  for (int n : args.streams) {
    const ProbedRun run =
        run_probed(streams_pipeline(video, model, conf, n, false, fmt::format("bench{}", n)), n);
    const double s = run.seconds;
    const double fps = steady_fps(run.probes);
    rows.push_back(
        {fmt::format("{} stream{} through yolo (batch-size {}), running", n, n > 1 ? "s" : "", n),
         fps});
    rows.push_back({"  the same, timed from PLAYING (load and warm-up in)",
                    static_cast<double>(n) * frame_count / s});
    // Half the per-stream rate this row reached: a load the element keeps up with.
    const int paced_fps = std::max(1, static_cast<int>(fps / n / 2));
    const fs::path paced_video = synthetic_video(
        args.out / fmt::format("synthetic-{}fps", paced_fps), args.frames, paced_fps);
    paced_rows.push_back(paced_row(paced_video, model, conf, n, paced_fps));
  }

  const std::vector<Row> tracking_rows = args.trackers.empty() && args.analytics.empty()
                                             ? std::vector<Row>{}
                                             : staged_rows(args, video, model, frame_count);
  const std::vector<Row> rect = args.rect_rounds > 0 ? rect_rows(args, video) : std::vector<Row>{};
  // Last, and on the main thread: the engine's best case. libgomp lets idle CPU workers spin
  // between ops only while the process holds no more of them than there are cores, counting
  // the main thread; a model on any other thread (the element's batcher) gets parked workers
  // when threads = cores.
  rows.insert(rows.begin(), engine_baseline(model, frames, conf));

  fmt::print(
      "\nyolo element vs bare engine: {} at {}, {} ({} frames per stream), conf {}, CPU, {} "
      "threads\n\n",
      args.model.empty() ? "yolov8n (untrained)" : model.filename().string(),
      args.model.empty() ? std::to_string(args.imgsz) : "its export size",
      args.video.empty() ? "640x360 H.264 synthetic video" : video.filename().string(), frame_count,
      conf, yolo::torch_threads());
  fmt::print("| {:<56} | {:>9} | {:>17} |\n", "what", "frames/s", "ratio to engine");
  fmt::print("|{:-<58}|{:->11}|{:->19}|\n", "", "", "");
  for (const auto& r : rows)
    fmt::print("| {:<56} | {:>9.1f} | {:>16.2f}x |\n", r.what, r.fps, r.fps / rows[0].fps);
  fmt::print("\nlatency through yolo (sink pad to src pad, every frame of every stream)\n\n");
  fmt::print("| {:<56} | {:>9} | {:>8} | {:>8} |\n", "what", "frames/s", "p50 ms", "p99 ms");
  fmt::print("|{:-<58}|{:->11}|{:->10}|{:->10}|\n", "", "", "", "");
  for (const auto& r : paced_rows)
    fmt::print("| {:<56} | {:>9.1f} | {:>8.1f} | {:>8.1f} |\n", r.what, r.fps, r.p50_ms, r.p99_ms);
  if (!tracking_rows.empty()) {
    fmt::print("\ntracking: medians of {} alternating rounds\n\n", args.rounds);
    fmt::print("| {:<56} | {:>9} | {:>28} | {:>14} |\n", "what", "frames/s",
               "paired ratio, median (range)", "ms added/frame");
    fmt::print("|{:-<58}|{:->11}|{:->30}|{:->16}|\n", "", "", "", "");
    for (const auto& r : tracking_rows)
      fmt::print("| {:<56} | {:>9.2f} | {:>28} | {:>14.2f} |\n", r.what, r.fps,
                 fmt::format("{:.3f}x ({:.3f}-{:.3f})", r.ratio, r.ratio_min, r.ratio_max),
                 1000.0 / r.fps - 1000.0 / tracking_rows[0].fps);
  }
  if (!rect.empty()) print_rect_table(rect, frames.front(), args.rect_rounds);
  fmt::print("\npeak resident memory of this process (VmHWM): {:.0f} MiB\n", peak_rss_mib());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return yolo::run_guarded([&] { return run(argc, argv); });
}
