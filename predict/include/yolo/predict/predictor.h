// `yolo-trainer predict` and `track` (Ultralytics' engine/predictor.py): runs a checkpoint over a
// source (frame_source.h) through the runtime's Engine pipeline -- letterbox to the model's traced
// size, forward, NMS (multi_label off), boxes mapped to the source frame -- and saves what was
// asked under runs/detect/predict, predict2, ... (see docs/predict.md):
//   image 1/5 /data/a.jpg: 480x640 2 rectangles, 1 ellipse, 12.3ms
//   Speed: 1.2ms preprocess, 12.3ms inference, 0.8ms postprocess per image at shape (1, 3, 480,
//   640)
//   Results saved to runs/detect/predict
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "yolo/predict/frame_source.h"
#include "yolo/predict/predict_results.h"
#include "yolo/runtime/postprocess.h"
#include "yolo/tracking/mot_metrics.h"
#include "yolo/tracking/tracker_config.h"

namespace yolo {

struct PredictOptions {
  std::string model;             // checkpoint (best.pt) or Ultralytics TorchScript export
  std::string source;            // files, folders, globs, lists, videos, streams: frame_source.h
  std::string device = "cpu";    // torch device string: "cpu", "cuda:0"
  bool half = false;             // FP16 inference (GPU only)
  std::optional<bool> bf16;      // BF16 autocast on the CPU; empty: where the CPU has it natively
  NmsOptions nms;                // conf (0.25), iou (0.7), max_det, classes, agnostic; single-label
  int batch = 1;                 // frames per forward pass (live streams always run one at a time)
  SourceOptions source_options;  // vid_stride, stream_buffer, stream timeout
  bool save = true;              // annotated images and videos
  bool save_txt = false;         // labels/*.txt
  bool save_conf = false;        // confidences in the label files
  bool save_crop = false;        // crops/<class>/*.jpg
  AnnotateOptions annotate;      // show_boxes, show_labels, show_conf, line_width
  std::string project;           // run folder parent; empty: runs/detect
  std::string name;              // run folder name; empty: predict (then predict2, ...)
  bool exist_ok = false;         // reuse an existing run folder
  bool verbose = true;           // one line per frame on stdout
  // As given: a .pt or training checkpoint is traced at it; a fixed-shape export runs at its
  // traced size (with a warning).
  std::vector<long long> imgsz;
  // Ultralytics' rect: each image letterboxed to its minimal stride-multiple rectangle (a batch of
  // one size; mixed sizes stay square) where the model runs any size (Engine::rect()).
  bool rect = true;
  std::optional<bool>
      nms_setting;  // nms= as given, only to warn when the file's traced head differs
  // `track`: the tracker's settings; the detections become its confirmed tracks, with ids
  // (yolo/tracking/tracker.h). nullopt for `predict`.
  std::optional<tracking::TrackerConfig> tracker;
  // `track`: whether the tracker carries on from one input (file) to the next. Unset: the images
  // of a folder, glob or list are one sequence in name order (a camera's frame dump, a MOT
  // sequence's img1/) and each video starts over; false: every input starts over (Ultralytics'
  // `yolo track`, whose persist is False); true: nothing starts over (its
  // model.track(persist=True)).
  std::optional<bool> persist;
  // `track` of an image sequence, when not empty: its tracks in MOTChallenge format as
  // mot/<mot_name>.txt in the run folder and, with `gt` (a MOTChallenge gt.txt, read: its source
  // is the path), the MOT metrics
  // against it (tracking/mot_metrics.h, TrackEval's conventions).
  std::string mot_name;
  std::optional<tracking::MotTable> gt;
};

struct PredictReport {
  int64_t frames = 0;                         // frames run through the model
  int inputs = 0;                             // files/URIs the source expanded to
  std::vector<std::string> problems;          // inputs that were skipped, and why
  std::filesystem::path save_dir;             // empty when nothing was saved
  int64_t label_files = 0;                    // labels/*.txt written
  std::vector<std::filesystem::path> videos;  // annotated videos written
  double preprocess_ms = 0, inference_ms = 0, postprocess_ms = 0;  // per frame, averages
  // One-time work, not in the times above: input sizes traced and prepared on first use.
  int prepared_shapes = 0;
  double prepare_ms = 0;
  bool stopped = false;            // ended early by `stop`
  std::filesystem::path mot_file;  // `track` of an image sequence: its tracks, MOTChallenge text
  std::optional<tracking::SequenceMetrics> mot_metrics;  // against `gt`, when given
};

// Runs prediction. Throws CheckpointError for an unusable model and std::runtime_error when
// outputs cannot be written; bad inputs are skipped and reported (never thrown). `stop`, when
// given and set (Ctrl-C), ends the run after the current frame with every file finished.
PredictReport run_predict(const PredictOptions& options, const std::atomic<bool>* stop = nullptr);

}  // namespace yolo
