#include "yolo/serving/snapshot_store.h"

#include "yolo/runtime/annotate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <stdexcept>

namespace yolo {

SnapshotStore::SnapshotStore(SnapshotOptions options) : options_(std::move(options)) {
  if (options_.max_streams < 1 || options_.max_width < 1 || options_.max_height < 1 ||
      options_.jpeg_quality < 1 || options_.jpeg_quality > 100) {
    throw std::invalid_argument(fmt::format(
        "snapshots: invalid options (max_streams={}, max_width={}, max_height={}, "
        "jpeg_quality={}); use max_streams, max_width, max_height >= 1 and jpeg_quality 1..100",
        options_.max_streams, options_.max_width, options_.max_height, options_.jpeg_quality));
  }
}

bool SnapshotStore::put(const FrameResult& result, const cv::Mat& frame) {
  if (frame.empty() || (frame.type() != CV_8UC3 && frame.type() != CV_8UC1)) {
    throw std::invalid_argument(fmt::format(
        "snapshots: frame of '{}' must be a non-empty 8-bit BGR or grey image", result.stream_id));
  }
  {
    // Refuse early, before copying pixels that would be thrown away.
    std::lock_guard<std::mutex> lock(mutex_);
    if (!latest_.count(result.stream_id) && latest_.size() >= options_.max_streams) return false;
  }
  auto snap = std::make_shared<Snapshot>();
  snap->scale = std::min({1.0, static_cast<double>(options_.max_width) / frame.cols,
                          static_cast<double>(options_.max_height) / frame.rows});
  if (snap->scale < 1.0) {
    const cv::Size size(std::max(1, static_cast<int>(frame.cols * snap->scale)),
                        std::max(1, static_cast<int>(frame.rows * snap->scale)));
    cv::resize(frame, snap->image, size, 0, 0, cv::INTER_AREA);
  } else {
    snap->image = frame.clone();
  }
  snap->detections = result.detections;
  std::lock_guard<std::mutex> lock(mutex_);
  // Checked again: another producer may have taken the last slot while we copied.
  if (!latest_.count(result.stream_id) && latest_.size() >= options_.max_streams) return false;
  latest_[result.stream_id] = std::move(snap);
  return true;
}

std::optional<std::vector<unsigned char>> SnapshotStore::jpeg(const std::string& stream_id) const {
  std::shared_ptr<const Snapshot> snap;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = latest_.find(stream_id);
    if (it == latest_.end()) return std::nullopt;
    snap = it->second;
  }
  cv::Mat canvas;
  if (snap->image.channels() == 1) {
    cv::cvtColor(snap->image, canvas, cv::COLOR_GRAY2BGR);  // coloured boxes on grey frames
  } else {
    canvas = snap->image.clone();  // the kept frame stays clean for the next request
  }
  if (options_.draw_boxes) annotate_detections(canvas, snap->detections, {}, snap->scale);
  std::vector<unsigned char> bytes;
  cv::imencode(".jpg", canvas, bytes, {cv::IMWRITE_JPEG_QUALITY, options_.jpeg_quality});
  return bytes;
}

bool SnapshotStore::has(const std::string& stream_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return latest_.count(stream_id) > 0;
}

void SnapshotStore::remove(const std::string& stream_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  latest_.erase(stream_id);
}

}  // namespace yolo
