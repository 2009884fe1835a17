#include "prediction_saver.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <opencv2/imgcodecs.hpp>

#include "yolo/core/atomic_file.h"

namespace yolo::predict {
namespace fs = std::filesystem;
namespace {

// Written video rate when the source does not say (Ultralytics writes every video at 30 fps).
constexpr double kDefaultVideoFps = 30.0;

// Encodes in the format of the path's extension (JPEG for formats OpenCV cannot write) and
// writes atomically.
void write_image(fs::path path, const cv::Mat& image) {
  std::vector<uint8_t> bytes;
  bool ok = false;
  try {
    ok = cv::imencode(path.extension().string(), image, bytes);
  } catch (const cv::Exception&) {
    ok = false;
  }
  if (!ok) {
    path.replace_extension(".jpg");
    if (!cv::imencode(".jpg", image, bytes))
      throw std::runtime_error(fmt::format("cannot encode '{}'", path.string()));
  }
  write_file_atomically(path, {reinterpret_cast<const char*>(bytes.data()), bytes.size()});
}

// Ultralytics' save_one_box: the box grown by 2% + 10 px, clipped to the frame.
cv::Mat crop_detection(const cv::Mat& image, const Detection& d) {
  const double cx = (static_cast<double>(d.x1) + d.x2) / 2,
               cy = (static_cast<double>(d.y1) + d.y2) / 2;
  const double w = (d.x2 - d.x1) * 1.02 + 10, h = (d.y2 - d.y1) * 1.02 + 10;
  const int x1 = std::clamp(static_cast<int>(cx - w / 2), 0, image.cols);
  const int y1 = std::clamp(static_cast<int>(cy - h / 2), 0, image.rows);
  const int x2 = std::clamp(static_cast<int>(cx + w / 2), 0, image.cols);
  const int y2 = std::clamp(static_cast<int>(cy + h / 2), 0, image.rows);
  if (x2 <= x1 || y2 <= y1) return {};
  return image(cv::Rect(x1, y1, x2 - x1, y2 - y1));
}

// "stem.jpg", then "stem2.jpg", "stem3.jpg", ... (Ultralytics' increment_path on crop names).
fs::path free_file_name(const fs::path& dir, const std::string& stem, const std::string& ext) {
  fs::path p = dir / (stem + ext);
  for (int n = 2; fs::exists(p); ++n) p = dir / (stem + std::to_string(n) + ext);
  return p;
}

}  // namespace

PredictionSaver::PredictionSaver(SaveOptions options) : options_(std::move(options)) {
  const fs::path jsonl = options_.dir / "predictions.jsonl";
  jsonl_.open(jsonl, std::ios::app);
  if (!jsonl_)
    throw std::runtime_error(
        fmt::format("cannot write '{}': check that the folder is writable", jsonl.string()));
}

PredictionSaver::~PredictionSaver() {
  try {
    close_video();
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
  }
}

void PredictionSaver::add(const Frame& frame, const FrameResult& result) {
  FrameResult r = result;
  r.seq = ++seq_[r.stream_id];
  jsonl_ << to_json(r).dump() << '\n';
  jsonl_.flush();
  if (!jsonl_)
    throw std::runtime_error(fmt::format("cannot append to '{}': disk full?",
                                         (options_.dir / "predictions.jsonl").string()));

  const bool video = frame.origin != FrameOrigin::kImage;
  const std::string stem =
      video ? fmt::format("{}_{}", frame.stream_id, frame.kept_number) : frame.stream_id;
  if (options_.save_txt) {
    const std::string lines =
        format_label_lines(r.detections, frame.image.cols, frame.image.rows, options_.save_conf);
    if (!lines.empty()) {
      write_file_atomically(options_.dir / "labels" / (stem + ".txt"), lines);
      ++label_files_;
    }
  }
  if (options_.save_crop) save_crops(frame, r, stem);
  if (!options_.save) return;
  cv::Mat annotated = frame.image.clone();
  annotate_detections(annotated, r.detections, options_.annotate);
  if (video) {
    add_video_frame(frame, annotated);
  } else {
    close_video();
    write_image(options_.dir / fs::path(frame.path).filename(), annotated);
  }
}

void PredictionSaver::add_video_frame(const Frame& frame, const cv::Mat& annotated) {
  if (frame.path != video_input_) {
    close_video();
    video_input_ = frame.path;
    const double fps = frame.fps > 0 ? frame.fps / options_.vid_stride : kDefaultVideoFps;
    video_ = std::make_unique<AnnotatedVideoWriter>(
        annotated_video_path(options_.dir, frame.stream_id, frame.path), fps);
  }
  if (!video_ || failed_input_ == frame.path) return;
  try {
    video_->write(annotated);
  } catch (const std::exception& e) {
    spdlog::error(
        "cannot write the annotated video '{}': {}; its labels and JSON lines are "
        "still written",
        video_->path().string(), e.what());
    failed_input_ = frame.path;
    video_.reset();
  }
}

void PredictionSaver::close_video() {
  video_input_.clear();
  if (!video_) return;
  std::unique_ptr<AnnotatedVideoWriter> writer = std::move(video_);
  try {
    if (fs::path p = writer->close(); !p.empty()) videos_.push_back(p);
  } catch (const std::exception& e) {
    spdlog::error("cannot finish the annotated video '{}': {}", writer->path().string(), e.what());
  }
}

void PredictionSaver::save_crops(const Frame& frame, const FrameResult& result,
                                 const std::string& stem) {
  for (const Detection& d : result.detections) {
    const cv::Mat crop = crop_detection(frame.image, d);
    if (crop.empty()) continue;
    const fs::path dir = options_.dir / "crops" / d.class_name;
    fs::create_directories(dir);
    write_image(free_file_name(dir, stem, ".jpg"), crop);
  }
}

void PredictionSaver::finish() {
  close_video();
}

}  // namespace yolo::predict
