#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <opencv2/imgproc.hpp>

#include "video_writer.h"
#include "yolo/core/strings.h"
#include "yolo/media/h264_writer.h"

namespace yolo::predict {
namespace fs = std::filesystem;

namespace {

constexpr const char* kKeptContainers[] = {".mp4", ".m4v", ".mov", ".mkv", ".avi"};

}  // namespace

fs::path annotated_video_path(const fs::path& dir, const std::string& stem,
                              const std::string& source) {
  // Only the last path segment of a URI counts (rtsp://host/cam.mkv?x=1).
  std::string name = source.substr(source.find_last_of('/') + 1);
  name = name.substr(0, name.find_first_of("?#"));
  const std::string ext = lower(fs::path(name).extension().string());
  const bool kept = std::find(std::begin(kKeptContainers), std::end(kKeptContainers), ext) !=
                    std::end(kKeptContainers);
  return dir / (stem + (kept ? ext : ".mp4"));
}

AnnotatedVideoWriter::AnnotatedVideoWriter(fs::path file, double fps)
    : file_(std::move(file)), fps_(fps) {
  if (!(fps_ > 0)) throw std::invalid_argument(fmt::format("video fps {} must be > 0", fps_));
  // Same folder (rename stays atomic), same extension (the OpenCV fallback picks its container
  // from it), a leading dot so that it is clearly not a result.
  partial_ =
      file_.parent_path() / ("." + file_.stem().string() + ".partial" + file_.extension().string());
}

AnnotatedVideoWriter::~AnnotatedVideoWriter() {
  if (!encoder_) return;
  try {
    close();
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
  }
}

void AnnotatedVideoWriter::write(const cv::Mat& bgr) {
  if (!encoder_) {
    // 4:2:0 H.264 needs even sizes: drop a last odd row/column rather than rescale.
    size_ = cv::Size(bgr.cols & ~1, bgr.rows & ~1);
    if (size_.width <= 0 || size_.height <= 0)
      throw std::runtime_error(fmt::format("cannot write a {}x{} video", bgr.cols, bgr.rows));
    const std::string why = media::h264_writer_unavailable_reason(file_.extension().string());
    if (why.empty()) {
      encoder_ = make_h264_encoder(partial_, size_, fps_);
    } else {
      spdlog::warn("{}: {}; writing MPEG-4 through OpenCV's FFmpeg backend instead", file_.string(),
                   why);
      encoder_ = make_opencv_encoder(partial_, size_, fps_);
    }
  }
  cv::Mat frame = bgr;
  if (bgr.cols != size_.width || bgr.rows != size_.height) {
    if (bgr.cols >= size_.width && bgr.rows >= size_.height && bgr.cols - size_.width <= 1 &&
        bgr.rows - size_.height <= 1) {
      frame = bgr(cv::Rect(0, 0, size_.width, size_.height));
    } else {
      // A stream that changed resolution: fit it to the video's size.
      cv::resize(bgr, frame, size_);
    }
  }
  if (!frame.isContinuous()) frame = frame.clone();
  encoder_->write(frame);
  ++frames_;
}

fs::path AnnotatedVideoWriter::close() {
  if (!encoder_) return {};
  std::unique_ptr<VideoEncoder> encoder = std::move(encoder_);
  try {
    encoder->finish();
  } catch (...) {
    std::error_code ec;
    fs::remove(partial_, ec);
    throw;
  }
  fs::rename(partial_, file_);
  return file_;
}

}  // namespace yolo::predict
