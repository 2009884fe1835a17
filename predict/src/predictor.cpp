// The predict loop: frames in batches through the model, one console line per frame, outputs
// through PredictionSaver, Ultralytics' speed summary at the end.
#include "yolo/predict/predictor.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>

#include "mot_sequence.h"
#include "prediction_saver.h"
#include "yolo/core/atomic_file.h"
#include "yolo/core/error.h"
#include "yolo/core/run_dir.h"
#include "yolo/runtime/detection.h"
#include "yolo/runtime/engine.h"
#include "yolo/runtime/image_detect.h"
#include "yolo/runtime/traced_head.h"
#include "yolo/tracking/stream_trackers.h"

namespace yolo {
namespace fs = std::filesystem;
namespace {

// "image 2/5 dir/a.jpg: ", "video 1/1 (frame 3/20) v.mp4: ", "stream 1/1 (frame 7) rtsp://...: "
std::string frame_prefix(const Frame& f) {
  switch (f.origin) {
    case FrameOrigin::kImage:
      return fmt::format("image {}/{} {}: ", f.item, f.items, f.path);
    case FrameOrigin::kVideo:
      return fmt::format("video {}/{} (frame {}/{}) {}: ", f.item, f.items, f.kept_number,
                         f.kept_total >= 0 ? std::to_string(f.kept_total) : "?", f.path);
    case FrameOrigin::kStream:
      break;
  }
  return fmt::format("stream {}/{} (frame {}) {}: ", f.item, f.items, f.kept_number, f.path);
}

class PredictRun {
 public:
  PredictRun(const PredictOptions& o, Engine& engine) : o_(o), engine_(engine) {
    nms_ = o.nms;
    nms_.multi_label = false;  // predict keeps the best class per box (Ultralytics)
    if (o.tracker) trackers_.emplace(*o.tracker);
    const InputKind kind = classify_source(o.source);
    image_sequence_ =
        kind == InputKind::kFolder || kind == InputKind::kGlob || kind == InputKind::kList;
    if (o.tracker && !o.mot_name.empty()) mot_.emplace();
  }

  void process(std::vector<Frame>& batch, PredictReport& report) {
    if (batch.empty()) return;
    std::vector<cv::Mat> images;
    for (const Frame& f : batch) images.push_back(f.image);
    StageTimes t;
    std::vector<ImageDetections> dets = detect_images(engine_, images, nms_, &t, o_.rect);
    report.preprocess_ms += t.preprocess_ms;
    report.inference_ms += t.inference_ms;
    report.postprocess_ms += t.postprocess_ms;
    report.prepare_ms += t.prepare_ms;
    report.prepared_shapes += t.prepared_new_shape ? 1 : 0;
    largest_batch_ = std::max(largest_batch_, batch.size());
    last_shape_ = {static_cast<int64_t>(batch.size()), engine_.metadata().channels,
                   dets.front().transform.out_height, dets.front().transform.out_width};
    for (size_t i = 0; i < batch.size(); ++i) {
      const Frame& f = batch[i];
      FrameResult r;
      r.stream_id = f.stream_id;
      r.frame = f.frame_index;
      r.pts_ns = f.pts_ns;
      r.wall_time = std::chrono::system_clock::now();
      r.width = f.image.cols;
      r.height = f.image.rows;
      const torch::Tensor rows = dets[i].boxes.to(torch::kFloat).contiguous();
      r.detections =
          detections_from_rows(rows.data_ptr<float>(), rows.size(0), engine_.metadata().names);
      if (trackers_) r.detections = track(f, r.detections);
      if (mot_ && f.origin == FrameOrigin::kImage) mot_->add(f.path, r.detections);
      if (o_.verbose) {
        fmt::print("{}{}x{} {}, {:.1f}ms\n", frame_prefix(f), dets[i].transform.out_height,
                   dets[i].transform.out_width, summarize_detections(r.detections), t.inference_ms);
        std::fflush(stdout);
      }
      if (saving()) saver(report).add(f, r);
      ++report.frames;
    }
    batch.clear();
  }

  void finish(PredictReport& report) {
    if (mot_) finish_mot(report);
    if (saver_) {
      saver_->finish();
      report.label_files = saver_->label_files();
      report.videos = saver_->videos();
    }
    if (report.frames > 0) {
      const double n = static_cast<double>(report.frames);
      report.preprocess_ms /= n;
      report.inference_ms /= n;
      report.postprocess_ms /= n;
    }
  }

  size_t largest_batch() const { return largest_batch_; }
  // The last batch's input shape, as Ultralytics' speed line shows it.
  const std::vector<int64_t>& last_shape() const { return last_shape_; }

 private:
  bool saving() const { return o_.save || o_.save_txt || o_.save_crop; }

  // The frame's confirmed tracks as detections with ids and the tracker's boxes. One tracker per
  // live stream; files share one that starts over with each new input, video or image
  // (Ultralytics' track without persist), so ids never run on from one input into the next.
  std::vector<Detection> track(const Frame& f, const std::vector<Detection>& detections) {
    const bool live = f.origin == FrameOrigin::kStream;
    tracking::Tracker& tracker = trackers_->tracker(live ? "stream:" + f.stream_id : "files");
    if (!live && f.item != tracked_input_) {
      // persist unset: the images of a folder, glob or list carry on as one sequence.
      const bool carry_on =
          o_.persist.value_or(image_sequence_ && f.origin == FrameOrigin::kImage &&
                              tracked_origin_ == FrameOrigin::kImage);
      if (!carry_on || tracked_input_ == 0) tracker.reset();
      tracked_input_ = f.item;
      tracked_origin_ = f.origin;
    }
    std::vector<tracking::TrackerDetection> in;
    in.reserve(detections.size());
    for (const Detection& d : detections) {
      in.push_back({d.x1, d.y1, d.x2, d.y2, d.confidence, d.class_id});
    }
    std::vector<Detection> out;
    for (const tracking::Track& t : tracker.update(in, &f.image)) {
      Detection d = detections[t.detection_index];
      // The filtered box can reach past the frame: clipped as every reported box (and as
      // Ultralytics' Results.update clips tracked boxes).
      const float w = static_cast<float>(f.image.cols), h = static_cast<float>(f.image.rows);
      d.x1 = std::clamp(t.x1, 0.0f, w);
      d.y1 = std::clamp(t.y1, 0.0f, h);
      d.x2 = std::clamp(t.x2, 0.0f, w);
      d.y2 = std::clamp(t.y2, 0.0f, h);
      d.confidence = t.score;
      d.track_id = t.id;
      out.push_back(std::move(d));
    }
    return out;
  }

  // The sequence's tracks as mot/<name>.txt, and their scores against `gt` when given.
  void finish_mot(PredictReport& report) {
    saver(report);  // the run folder
    report.mot_file = report.save_dir / "mot" / (o_.mot_name + ".txt");
    mot_->write(report.mot_file);
    fmt::print("{} tracked box{} in MOTChallenge format: {}\n", mot_->rows().size(),
               mot_->rows().size() == 1 ? "" : "es", report.mot_file.string());
    if (!o_.gt) return;
    predict::require_ground_truth_on(*o_.gt, mot_->frame_numbers());
    report.mot_metrics = predict::score_mot_sequence(
        *o_.gt, tracking::MotTable{report.mot_file.string(), mot_->rows()});
    write_file_atomically(
        report.save_dir / "mot" / (o_.mot_name + "_metrics.json"),
        predict::mot_metrics_json(o_.mot_name, o_.gt->source, *report.mot_metrics));
    fmt::print("MOT metrics against {} (TrackEval's conventions, %):\n{}\n", o_.gt->source,
               predict::mot_metrics_table(o_.mot_name, *report.mot_metrics));
  }

  // The run folder is made with the first frame, so that a source with nothing readable leaves
  // no empty predictN folder behind.
  predict::PredictionSaver& saver(PredictReport& report) {
    if (!saver_) {
      report.save_dir =
          make_run_dir(o_.project, o_.name, o_.tracker ? "track" : "predict", o_.exist_ok);
      predict::SaveOptions s;
      s.dir = report.save_dir;
      s.save = o_.save;
      s.save_txt = o_.save_txt;
      s.save_conf = o_.save_conf;
      s.save_crop = o_.save_crop;
      s.annotate = o_.annotate;
      s.vid_stride = o_.source_options.vid_stride;
      saver_.emplace(s);
    }
    return *saver_;
  }

  const PredictOptions& o_;
  Engine& engine_;
  NmsOptions nms_;
  std::optional<predict::PredictionSaver> saver_;
  size_t largest_batch_ = 0;
  std::vector<int64_t> last_shape_;
  std::optional<tracking::StreamTrackers> trackers_;
  int tracked_input_ = 0;  // the input (Frame::item) the files' tracker is following
  FrameOrigin tracked_origin_ = FrameOrigin::kImage;
  bool image_sequence_ = false;  // the source is a folder, glob or list
  std::optional<predict::MotSequence> mot_;
};

}  // namespace

PredictReport run_predict(const PredictOptions& o, const std::atomic<bool>* stop) {
  EngineOptions eo;
  eo.device = o.device;
  eo.half = o.half;
  eo.bf16 = o.bf16;
  eo.imgsz.assign(o.imgsz.begin(), o.imgsz.end());  // a .pt is traced at it
  eo.rect = o.rect;
  Engine engine(o.model, eo);
  spdlog::info("inference: {}", engine.precision());
  if (o.rect && !engine.rect()) {
    spdlog::info(
        "{} is a fixed-shape export: every image runs at {}x{} (rectangular inference needs a "
        ".pt or a yolo-trainer training checkpoint)",
        o.model, engine.input_height(), engine.input_width());
  }
  const ModelMetadata& meta = engine.metadata();
  warn_if_traced_head_differs(meta.end2end, o.nms_setting, o.model);
  for (int c : o.nms.classes) {
    if (meta.names.empty() || meta.names.count(c)) continue;
    const std::string known = describe_classes(meta.names);
    throw UsageError(fmt::format("classes: {} is not a class of {} (it has {}); use these ids", c,
                                 o.model, known));
  }
  if (!engine.rect() && !o.imgsz.empty() &&
      (o.imgsz.front() != meta.imgsz[0] || o.imgsz.back() != meta.imgsz[1])) {
    spdlog::warn("imgsz={} ignored: {} runs at its exported size {}x{}", fmt::join(o.imgsz, ","),
                 o.model, meta.imgsz[0], meta.imgsz[1]);
  }

  PredictReport report;
  SourceOptions source_options = o.source_options;
  // A tracked image sequence is its frames: a video beside them would be tracked as more frames
  // of the same scene (Ultralytics does that; we pass it over and say so).
  source_options.images_only = o.tracker.has_value() && !o.mot_name.empty();
  std::unique_ptr<FrameSource> source = open_source(o.source, source_options);
  report.inputs = source->inputs();
  PredictRun run(o, engine);
  std::vector<Frame> batch;
  while (true) {
    if (stop && stop->load()) {
      report.stopped = true;
      break;
    }
    std::optional<Frame> f = source->next();
    if (!f) break;
    const bool live = f->origin == FrameOrigin::kStream;
    batch.push_back(std::move(*f));
    // A live frame is not held back waiting for more: results stay current.
    if (live || static_cast<int>(batch.size()) >= o.batch) run.process(batch, report);
  }
  run.process(batch, report);
  run.finish(report);
  report.problems = source->problems();

  if (report.frames > 0) {
    fmt::print(
        "Speed: {:.1f}ms preprocess, {:.1f}ms inference, {:.1f}ms postprocess per image at "
        "shape ({}, {}, {}, {})\n",
        report.preprocess_ms, report.inference_ms, report.postprocess_ms, run.last_shape()[0],
        run.last_shape()[1], run.last_shape()[2], run.last_shape()[3]);
    if (report.prepared_shapes > 0)
      fmt::print("{}\n", shape_preparation_line(report.prepared_shapes, report.prepare_ms));
  }
  if (!report.save_dir.empty()) {
    fmt::print("Results saved to {}\n", report.save_dir.string());
    if (o.save_txt)
      fmt::print("{} label{} saved to {}\n", report.label_files, report.label_files == 1 ? "" : "s",
                 (report.save_dir / "labels").string());
  }
  std::fflush(stdout);
  return report;
}

}  // namespace yolo
