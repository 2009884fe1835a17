// Throughput of the `yolo` element in real pipelines against the bare runtime engine, on the
// same decoded frames, in one run.
//
//   build/bin/bench_gst [--imgsz 320] [--frames 150] [--streams 1,4,8] [--out DIR]
//                       [--stream-rounds 3] [--compare-bgr]
//                       [--model FILE] [--video FILE | --pan-photo PHOTO] [--conf 0.1]
//                       [--trackers bytetrack.yaml,botsort.yaml] [--rounds 3]
//                       [--analytics lines.yaml [--mqtt-url mqtt://127.0.0.1:1883]]
//
// Frames: the synthetic video (640x360 H.264, generated into DIR), --video, or a 1280x720 pan
// over --pan-photo (real content at a real camera's size). Model: an
// untrained yolov8n exported at imgsz (speed does not depend on the weights; NMS load is kept
// comparable by a fixed conf-threshold), or --model (a trained export, so that the tracker
// rows see real objects). Rows:
//   (1) baseline: detect_images on the decoded BGR frames, one frame per call, no GStreamer, on
//       a thread of its own with no pipeline running (the engine's best case), once in every
//       round of (2), so that each stream row's ratio pairs runs of the same round (the
//       machine drifts by 20-40 % over minutes; a baseline measured once carries that drift);
//   (2) N streams: N x `filesrc ! decodebin ! videoconvert ! yolo ! fakesink` in one pipeline,
//       all sharing one model instance (batch-size N), decoding included, as fast as they go;
//       in --stream-rounds rounds (medians; with --compare-bgr each round also runs BGR into
//       the element, and that row gives its ratio to the I420 run of the same round);
//       then the same paced as live cameras (`identity sync=true` before `yolo`) at half the
//       frames/s per stream that row reached, so that the element is not saturated: per-frame
//       latency through `yolo` (its sink pad to its src pad, batching wait included), p50 and
//       p99 over every frame of every stream after each stream's first 5 (warm-up; the paced
//       rows use the synthetic video, or the pan video again at the paced rate). Each
//       row also gives the process's CPU use (user + system over wall time, 100 % = one core)
//       and where a frame's time goes in `yolo` (its "stats": back-pressure, preprocessing,
//       waiting for the model's row, postprocessing, downstream; the model's queue wait, call
//       time and batch fill);
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
#include <sys/resource.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "yolo/core/log.h"
#include "yolo/core/main_guard.h"
#include "yolo/core/serial_torch_ops.h"
#include "yolo/core/system_info.h"
#include "yolo/media/h264_writer.h"
#include "yolo/models/checkpoint.h"
#include "yolo/models/detection_model.h"
#include "yolo/runtime/engine.h"
#include "yolo/runtime/image_detect.h"
#include "yolo/synth/synthetic_data.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
  int imgsz = 320, frames = 150, rounds = 3, rect_rounds = 0, stream_rounds = 1;
  bool compare_bgr = false;
  float conf = 0.25f;
  std::vector<int> streams = {1, 4, 8};
  std::vector<std::string> trackers = {"bytetrack.yaml", "botsort.yaml"};
  fs::path out = "runs/bench/gst", model, video, analytics, pan_photo;
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
  app.add_option("--pan-photo", a.pan_photo,
                 "make the video from this photo: a 1280x720 H.264 camera pan over it, --frames "
                 "long (a real-size 16:9 video with real content)")
      ->check(CLI::ExistingFile);
  app.add_option("--stream-rounds", a.stream_rounds,
                 "rounds of the stream rows (medians, and ranges of the paired ratios)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--compare-bgr", a.compare_bgr,
               "also run every stream row with BGR into the element (the pipelines before "
               "2026-12-06), alternating with the decoder's I420 in each round");
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
// The first kWarmupFrames of each stream are left out of the latencies: they wait for the
// model's first calls at a new input shape (tracing, allocator warm-up), which a camera that
// runs for days sees once.
constexpr size_t kWarmupFrames = 5;

struct LatencyProbe {
  std::mutex mutex;
  std::map<GstClockTime, Clock::time_point> entered;
  size_t seen = 0;                      // frames that left
  std::vector<double> ms;               // latencies after the warm-up
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
    if (++probe->seen > kWarmupFrames)
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

// CPU time (user + system) this process has used so far, seconds.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

// Where a frame's time goes in one `yolo` element, from its "stats" (means per frame, µs).
struct StageStats {
  double backpressure = 0, preprocess = 0, result_wait = 0, postprocess = 0, push = 0;
  double model_queue_wait = 0, model_inference = 0, model_batch = 0;
};

StageStats stage_stats(GstElement* yolo) {
  GstStructure* st = nullptr;
  g_object_get(yolo, "stats", &st, nullptr);
  StageStats out;
  if (!st) return out;
  const auto get = [&](const char* field, double& v) { gst_structure_get_double(st, field, &v); };
  get("mean-backpressure-us", out.backpressure);
  get("mean-preprocess-us", out.preprocess);
  get("mean-result-wait-us", out.result_wait);
  get("mean-postprocess-us", out.postprocess);
  get("mean-push-us", out.push);
  get("model-mean-queue-wait-us", out.model_queue_wait);
  get("model-mean-inference-us", out.model_inference);
  get("model-mean-batch", out.model_batch);
  gst_structure_free(st);
  return out;
}

// The mean of the stage stats of yolo0 .. yolo<n-1>.
StageStats mean_stage_stats(GstElement* pipeline, int n) {
  StageStats sum;
  for (int i = 0; i < n; ++i) {
    GstElement* e = gst_bin_get_by_name(GST_BIN(pipeline), fmt::format("yolo{}", i).c_str());
    if (!e) continue;
    const StageStats s = stage_stats(e);
    gst_object_unref(e);
    sum.backpressure += s.backpressure / n;
    sum.preprocess += s.preprocess / n;
    sum.result_wait += s.result_wait / n;
    sum.postprocess += s.postprocess / n;
    sum.push += s.push / n;
    sum.model_queue_wait = s.model_queue_wait;  // one model for all
    sum.model_inference = s.model_inference;
    sum.model_batch = s.model_batch;
  }
  return sum;
}

// Plays the pipeline to EOS; returns seconds from PLAYING to EOS. Throws on ERROR. at_eos runs
// at EOS, before the pipeline stops (the elements' statistics are still there).
double run_to_eos(GstElement* pipeline, const std::function<void(GstElement*)>& at_eos = nullptr) {
  const auto t0 = Clock::now();
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* msg = gst_bus_timed_pop_filtered(
      bus, GST_CLOCK_TIME_NONE, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::string error;
  if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_EOS && at_eos) at_eos(pipeline);
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
  Row(std::string what_, double fps_, double ratio_ = 1, double lo = 1, double hi = 1)
      : what(std::move(what_)), fps(fps_), ratio(ratio_), ratio_min(lo), ratio_max(hi) {}
  std::string what;
  double fps;
  double ratio = 1, ratio_min = 1, ratio_max = 1;  // staged rows: paired per round
  // Stream rows: median (range) of each round's frames/s over that round's baseline; 0: none.
  double vs_engine = 0, vs_engine_min = 0, vs_engine_max = 0;
  double p50_ms = 0, p99_ms = 0;  // latency through `yolo`
  double cpu_percent = 0;         // process CPU over wall, 100 = one core
  StageStats stages;              // streams rows: where the time goes
};

// N copies of `filesrc ! decodebin ! videoconvert [! identity sync=true] ! yolo ! fakesink`
// sharing one model instance; the yolo elements are named yolo0, yolo1, ...
// bgr_input: the element gets BGR (`videoconvert ! video/x-raw,format=BGR`, what the monitor and
// the examples fed it before 2026-12-06) instead of the decoder's own I420.
std::string streams_pipeline(const fs::path& video, const fs::path& model, float conf, int n,
                             bool paced, const std::string& instance, bool bgr_input = false) {
  std::string description;
  for (int i = 0; i < n; ++i) {
    description += fmt::format(
        "filesrc location={} ! decodebin ! videoconvert ! {}{}yolo name=yolo{} model={} "
        "conf-threshold={} model-instance-id={} batch-size={} batch-timeout=20000 stream-id=s{} "
        "! fakesink sync=false ",
        video.string(), bgr_input ? "video/x-raw,format=BGR ! " : "",
        paced ? "identity sync=true ! " : "", i, model.string(), conf, instance, n, i);
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

// A 1280x720 H.264 video at `fps` frames/s of a camera panning across `photo` (scaled to cover
// 1.25 x the frame, then a 1280x720 window moving across it and back).
fs::path pan_video(const fs::path& photo, const fs::path& dir, int frames, int fps = 30) {
  const cv::Mat image = cv::imread(photo.string(), cv::IMREAD_COLOR);
  if (image.empty()) throw std::runtime_error("cannot read the photo " + photo.string());
  const cv::Size frame(1280, 720);
  const double scale = std::max(1.25 * frame.width / image.cols, 1.25 * frame.height / image.rows);
  cv::Mat big;
  cv::resize(image, big, cv::Size(), scale, scale, cv::INTER_AREA);
  const fs::path video = dir / fmt::format("pan-{}-{}fps.mp4", photo.stem().string(), fps);
  yolo::media::H264Writer writer(video, frame, {static_cast<double>(fps), false, {}});
  const int dx = big.cols - frame.width, dy = big.rows - frame.height;
  for (int i = 0; i < frames; ++i) {
    const double t = frames > 1 ? static_cast<double>(i) / (frames - 1) : 0;
    const double along = t < 0.5 ? 2 * t : 2 - 2 * t;  // there and back
    writer.write(big(cv::Rect(static_cast<int>(along * dx), static_cast<int>(along * dy / 2),
                              frame.width, frame.height)));
  }
  writer.finish();
  return video;
}

// A streams_pipeline() played to EOS with latency probes on its n yolo elements.
struct ProbedRun {
  ProbedRun(double s, std::vector<std::unique_ptr<LatencyProbe>> p)
      : seconds(s), probes(std::move(p)) {}
  double seconds;  // from PLAYING to EOS
  std::vector<std::unique_ptr<LatencyProbe>> probes;
  double cpu_percent = 0;
  StageStats stages;
};

ProbedRun run_probed(const std::string& description, int n) {
  GstElement* pipeline = launch(description);
  gst_object_ref(pipeline);  // run_to_eos releases one reference; the probes outlive it
  ProbedRun run{0, probe_latency(pipeline, n)};
  const double cpu0 = cpu_seconds();
  run.seconds = run_to_eos(pipeline, [&](GstElement* p) { run.stages = mean_stage_stats(p, n); });
  run.cpu_percent = 100.0 * (cpu_seconds() - cpu0) / run.seconds;
  gst_object_unref(pipeline);
  return run;
}

// Every frame's latency through `yolo` in a run, all streams together.
std::vector<double> all_latencies(const ProbedRun& run) {
  std::vector<double> all;
  for (const auto& p : run.probes) all.insert(all.end(), p->ms.begin(), p->ms.end());
  return all;
}

// Latency as a live source sees it: the streams paced at `fps` each.
Row paced_row(const fs::path& video, const fs::path& model, float conf, int n, int fps) {
  const ProbedRun run =
      run_probed(streams_pipeline(video, model, conf, n, true, fmt::format("paced{}", n)), n);
  const std::vector<double> all = all_latencies(run);
  Row r{fmt::format("{} stream{} paced at {} frames/s each", n, n > 1 ? "s" : "", fps),
        steady_fps(run.probes)};
  r.p50_ms = percentile(all, 0.5);
  r.p99_ms = percentile(all, 0.99);
  r.cpu_percent = run.cpu_percent;
  r.stages = run.stages;
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
  const double cpu0 = cpu_seconds();
  std::vector<double> ms;
  for (const cv::Mat& f : frames) {
    const auto f0 = Clock::now();
    yolo::detect_images(engine, {f}, nms);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - f0).count());
  }
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  Row r{fmt::format("detect_images, 1 frame per call ({} frames)", frames.size()),
        static_cast<double>(frames.size()) / s};
  r.p50_ms = percentile(ms, 0.5);
  r.p99_ms = percentile(ms, 0.99);
  r.cpu_percent = 100.0 * (cpu_seconds() - cpu0) / s;
  return r;
}

// One stream count's row (I420 in, or BGR in) from its rounds: medians, and each round's
// ratio to the I420 run of the same round.
Row streams_row(const std::vector<std::vector<ProbedRun>>& runs, size_t v, bool bgr_input, int n,
                const std::vector<double>& engine_fps) {
  std::vector<double> fps, p50, p99, cpu, paired, vs_engine;
  for (size_t r = 0; r < runs[v].size(); ++r) {
    const ProbedRun& run = runs[v][r];
    fps.push_back(steady_fps(run.probes));
    const std::vector<double> all = all_latencies(run);
    p50.push_back(percentile(all, 0.5));
    p99.push_back(percentile(all, 0.99));
    cpu.push_back(run.cpu_percent);
    paired.push_back(fps.back() / steady_fps(runs[0][r].probes));
    vs_engine.push_back(fps.back() / engine_fps[r]);
  }
  Row row{fmt::format("{} stream{} through yolo (batch-size {}){}", n, n > 1 ? "s" : "", n,
                      bgr_input ? ", BGR in" : ""),
          median(fps), median(paired), *std::min_element(paired.begin(), paired.end()),
          *std::max_element(paired.begin(), paired.end())};
  row.p50_ms = median(p50);
  row.p99_ms = median(p99);
  row.cpu_percent = median(cpu);
  row.stages = runs[v][runs[v].size() / 2].stages;  // one round's, for the breakdown
  row.vs_engine = median(vs_engine);
  row.vs_engine_min = *std::min_element(vs_engine.begin(), vs_engine.end());
  row.vs_engine_max = *std::max_element(vs_engine.begin(), vs_engine.end());
  return row;
}

struct StreamRows {
  std::vector<Row> rows;   // the baseline, then as fast as they go, with a "timed from PLAYING"
                           // row each
  std::vector<Row> paced;  // paced as live cameras
};

// Each stream count in `stream_rounds` rounds, I420 then (--compare-bgr) BGR into the element in
// each; then the same count paced as live cameras.
StreamRows measure_streams(const Args& args, const fs::path& video, const fs::path& model,
                           const std::vector<cv::Mat>& frames) {
  const size_t frame_count = frames.size();
  StreamRows out;
  std::vector<Row> baselines;  // every round's
  const std::vector<bool> inputs =
      args.compare_bgr ? std::vector<bool>{false, true} : std::vector<bool>{false};
  for (int n : args.streams) {
    std::vector<std::vector<ProbedRun>> runs(inputs.size());
    std::vector<double> engine_fps;
    for (int r = 0; r < args.stream_rounds; ++r) {
      // The round's baseline, on a thread of its own: its LibTorch workers end with it, so the
      // pipelines' model thread never shares the cores with idle workers of another thread
      // (serial_torch_ops.h), and the baseline has the machine to itself.
      baselines.push_back(
          yolo::run_on_own_thread([&] { return engine_baseline(model, frames, args.conf); }));
      engine_fps.push_back(baselines.back().fps);
      fmt::print(stderr, "round {}/{}: bare engine: {:.2f} frames/s\n", r + 1, args.stream_rounds,
                 engine_fps.back());
      for (size_t v = 0; v < inputs.size(); ++v) {
        runs[v].push_back(
            run_probed(streams_pipeline(video, model, args.conf, n, false,
                                        fmt::format("bench{}-{}-{}", n, r, v), inputs[v]),
                       n));
        fmt::print(stderr, "round {}/{}: {} stream(s), {} in: {:.2f} frames/s\n", r + 1,
                   args.stream_rounds, n, inputs[v] ? "BGR" : "I420",
                   steady_fps(runs[v].back().probes));
      }
    }
    double i420_fps = 0;
    for (size_t v = 0; v < inputs.size(); ++v) {
      std::vector<double> whole;
      for (const ProbedRun& run : runs[v])
        whole.push_back(static_cast<double>(n) * frame_count / run.seconds);
      out.rows.push_back(streams_row(runs, v, inputs[v], n, engine_fps));
      if (v == 0) i420_fps = out.rows.back().fps;
      out.rows.push_back({"  the same, timed from PLAYING (load and warm-up in)", median(whole)});
    }
    // Half the per-stream rate the I420 row reached: a load the element keeps up with, on the
    // same content (the pan video again at that rate, or the synthetic one).
    const int paced_fps = std::max(1, static_cast<int>(i420_fps / n / 2));
    const fs::path paced_video =
        args.pan_photo.empty()
            ? synthetic_video(args.out / fmt::format("synthetic-{}fps", paced_fps), args.frames,
                              paced_fps)
            : pan_video(args.pan_photo, args.out, args.frames, paced_fps);
    out.paced.push_back(paced_row(paced_video, model, args.conf, n, paced_fps));
  }
  // The baseline row: the median round's.
  std::sort(baselines.begin(), baselines.end(),
            [](const Row& a, const Row& b) { return a.fps < b.fps; });
  Row baseline = baselines[baselines.size() / 2];
  baseline.what =
      fmt::format("detect_images, 1 frame per call (median of {} rounds)", baselines.size());
  out.rows.insert(out.rows.begin(), baseline);
  return out;
}

// The stream rows against the baseline (rows[0]), the paced rows' latencies, and where a
// frame's time goes in each.
void print_stream_tables(const std::vector<Row>& rows, const std::vector<Row>& paced_rows) {
  fmt::print("| {:<56} | {:>9} | {:>24} | {:>8} | {:>8} | {:>6} | {:>22} |\n", "what", "frames/s",
             "to engine, per round", "p50 ms", "p99 ms", "CPU %", "to I420 in, per round");
  fmt::print("|{:-<58}|{:->11}|{:->26}|{:->10}|{:->10}|{:->8}|{:->24}|\n", "", "", "", "", "", "",
             "");
  for (const auto& r : rows) {
    const bool timed = r.p50_ms > 0;
    // Stream rows: paired with each round's baseline; the others against the median baseline.
    const std::string to_engine =
        r.vs_engine > 0
            ? fmt::format("{:.2f}x ({:.2f}-{:.2f})", r.vs_engine, r.vs_engine_min, r.vs_engine_max)
            : fmt::format("{:.2f}x", r.fps / rows[0].fps);
    fmt::print("| {:<56} | {:>9.1f} | {:>24} | {:>8} | {:>8} | {:>6} | {:>22} |\n", r.what, r.fps,
               to_engine, timed ? fmt::format("{:.1f}", r.p50_ms) : "",
               timed ? fmt::format("{:.1f}", r.p99_ms) : "",
               r.cpu_percent > 0 ? fmt::format("{:.0f}", r.cpu_percent) : "",
               r.ratio != 1 || r.ratio_min != 1 || r.ratio_max != 1
                   ? fmt::format("{:.3f}x ({:.3f}-{:.3f})", r.ratio, r.ratio_min, r.ratio_max)
                   : "");
  }
  fmt::print("\nlatency through yolo (sink pad to src pad, every frame of every stream)\n\n");
  fmt::print("| {:<56} | {:>9} | {:>8} | {:>8} | {:>6} |\n", "what", "frames/s", "p50 ms", "p99 ms",
             "CPU %");
  fmt::print("|{:-<58}|{:->11}|{:->10}|{:->10}|{:->8}|\n", "", "", "", "", "");
  for (const auto& r : paced_rows)
    fmt::print("| {:<56} | {:>9.1f} | {:>8.1f} | {:>8.1f} | {:>6.0f} |\n", r.what, r.fps, r.p50_ms,
               r.p99_ms, r.cpu_percent);
  // Where a frame's time goes, per stream: the element's own stages (means per frame) and the
  // shared model's (per batch).
  fmt::print(
      "\nwhere a frame's time goes in yolo, ms (means; back-pressure, preprocess, result wait, "
      "postprocess and downstream per frame; the model's queue wait per frame, call per "
      "batch)\n\n");
  fmt::print("| {:<56} | {:>6} | {:>6} | {:>7} | {:>6} | {:>6} | {:>7} | {:>6} | {:>5} |\n", "what",
             "backpr", "prep", "r. wait", "post", "push", "m.queue", "m.call", "batch");
  fmt::print("|{:-<58}|{:->8}|{:->8}|{:->9}|{:->8}|{:->8}|{:->9}|{:->8}|{:->7}|\n", "", "", "", "",
             "", "", "", "", "");
  auto print_stages = [](const Row& r) {
    const StageStats& t = r.stages;
    fmt::print(
        "| {:<56} | {:>6.2f} | {:>6.2f} | {:>7.2f} | {:>6.2f} | {:>6.2f} | {:>7.2f} | {:>6.2f} | "
        "{:>5.2f} |\n",
        r.what, t.backpressure / 1000, t.preprocess / 1000, t.result_wait / 1000,
        t.postprocess / 1000, t.push / 1000, t.model_queue_wait / 1000, t.model_inference / 1000,
        t.model_batch);
  };
  for (const auto& r : rows)
    if (r.stages.model_batch > 0) print_stages(r);
  for (const auto& r : paced_rows)
    if (r.stages.model_batch > 0) print_stages(r);
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
  if (!args.pan_photo.empty()) video = pan_video(args.pan_photo, args.out, args.frames);
  if (video.empty()) video = synthetic_video(args.out / "synthetic", args.frames, 30);

  const fs::path model = args.model.empty() ? export_untrained(args) : fs::path(args.model);
  const std::vector<cv::Mat> frames = decode(video);
  const size_t frame_count = frames.size();
  StreamRows streams = measure_streams(args, video, model, frames);
  std::vector<Row>& rows = streams.rows;
  const std::vector<Row> tracking_rows = args.trackers.empty() && args.analytics.empty()
                                             ? std::vector<Row>{}
                                             : staged_rows(args, video, model, frame_count);
  const std::vector<Row> rect = args.rect_rounds > 0 ? rect_rows(args, video) : std::vector<Row>{};

  fmt::print(
      "\nyolo element vs bare engine: {} at {}, {} ({} frames per stream), conf {}, CPU, {} "
      "threads\n\n",
      args.model.empty() ? "yolov8n (untrained)" : model.filename().string(),
      args.model.empty() ? std::to_string(args.imgsz) : "its export size",
      args.video.empty() && args.pan_photo.empty() ? "640x360 H.264 synthetic video"
                                                   : video.filename().string(),
      frame_count, args.conf, yolo::torch_threads());
  print_stream_tables(rows, streams.paced);
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
