// Writes what predict keeps of each frame under the run folder (Ultralytics' predictor
// write_results / save_predicted_images):
//   <name>                      annotated image, same file name as the source image (save)
//   <stem>.<ext>                annotated video per video/stream input (save)
//   labels/<stem>.txt           YOLO lines per image with detections (save_txt)
//   labels/<stem>_<k>.txt       ... per kept video frame, k = 1, 2, ... (save_txt)
//   crops/<class>/<stem>.jpg    each detection cut out of the source frame (save_crop)
//   predictions.jsonl           one detections-JSON line per frame (docs/detections-json.md)
// Whole files are written atomically; the JSON-lines file is appended and flushed per line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "video_writer.h"
#include "yolo/predict/frame_source.h"
#include "yolo/predict/predict_results.h"
#include "yolo/runtime/detection.h"

namespace yolo::predict {

struct SaveOptions {
  std::filesystem::path dir;  // the run folder (exists)
  bool save = true;           // annotated images and videos
  bool save_txt = false;      // YOLO label files
  bool save_conf = false;     // confidences in the label files
  bool save_crop = false;     // detection crops
  AnnotateOptions annotate;
  int vid_stride = 1;  // the written video plays at the source rate / vid_stride
};

class PredictionSaver {
 public:
  explicit PredictionSaver(SaveOptions options);
  ~PredictionSaver();  // closes an open video
  PredictionSaver(const PredictionSaver&) = delete;
  PredictionSaver& operator=(const PredictionSaver&) = delete;

  // Throws std::runtime_error naming the file when an image, label or JSON line cannot be
  // written; a video that cannot be encoded is reported once and its frames are not written.
  void add(const Frame& frame, const FrameResult& result);
  // Closes the open video, if any.
  void finish();

  int64_t label_files() const { return label_files_; }
  const std::vector<std::filesystem::path>& videos() const { return videos_; }

 private:
  void add_video_frame(const Frame& frame, const cv::Mat& annotated);
  void close_video();
  void save_crops(const Frame& frame, const FrameResult& result, const std::string& stem);

  SaveOptions options_;
  std::ofstream jsonl_;
  std::map<std::string, uint64_t> seq_;  // per stream id
  std::unique_ptr<AnnotatedVideoWriter> video_;
  std::string video_input_;   // path of the input the open video belongs to
  std::string failed_input_;  // an input whose video could not be encoded
  std::vector<std::filesystem::path> videos_;
  int64_t label_files_ = 0;
};

}  // namespace yolo::predict
