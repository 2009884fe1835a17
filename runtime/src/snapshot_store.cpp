#include "yolo/runtime/snapshot_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <stdexcept>

namespace yolo {
namespace {

// Ultralytics' default box colours (as BGR), so snapshots look like its plots.
const cv::Scalar& class_colour(int class_id) {
  static const cv::Scalar kPalette[] = {
      {56, 56, 255},  {151, 157, 255}, {31, 112, 255}, {29, 178, 255},  {49, 210, 207},
      {10, 249, 72},  {23, 204, 146},  {134, 219, 61}, {52, 147, 26},   {187, 212, 0},
      {168, 153, 44}, {255, 194, 0},   {147, 69, 52},  {255, 115, 100}, {236, 24, 0},
      {255, 56, 132}, {133, 0, 82},    {255, 56, 203}, {200, 149, 255}, {199, 55, 255}};
  constexpr int kCount = static_cast<int>(sizeof kPalette / sizeof kPalette[0]);
  return kPalette[((class_id % kCount) + kCount) % kCount];
}

// Boxes and "name 0.91" labels, sized relative to the image so they stay legible (at least 2 px:
// JPEG's chroma subsampling washes out 1 px lines).
void draw_detections(cv::Mat& bgr, const std::vector<Detection>& detections, double scale) {
  const int thickness =
      std::max(2, static_cast<int>(std::lround(std::min(bgr.cols, bgr.rows) / 360.0)));
  const double font_scale = thickness / 3.0 + 0.2;
  for (const auto& d : detections) {
    const cv::Point p1(static_cast<int>(std::lround(d.x1 * scale)),
                       static_cast<int>(std::lround(d.y1 * scale)));
    const cv::Point p2(static_cast<int>(std::lround(d.x2 * scale)),
                       static_cast<int>(std::lround(d.y2 * scale)));
    const cv::Scalar& colour = class_colour(d.class_id);
    cv::rectangle(bgr, p1, p2, colour, thickness, cv::LINE_AA);
    const std::string label = fmt::format("{} {:.2f}", d.class_name, d.confidence);
    int baseline = 0;
    const cv::Size text =
        cv::getTextSize(label, cv::FONT_HERSHEY_SIMPLEX, font_scale, thickness, &baseline);
    // Label above the box, or inside it when the box touches the top edge.
    const bool above = p1.y - text.height - baseline >= 0;
    const cv::Point origin(p1.x, above ? p1.y - baseline : p1.y + text.height);
    cv::rectangle(bgr, cv::Point(origin.x, origin.y - text.height),
                  cv::Point(origin.x + text.width, origin.y + baseline), colour, cv::FILLED);
    cv::putText(bgr, label, origin, cv::FONT_HERSHEY_SIMPLEX, font_scale, cv::Scalar(255, 255, 255),
                thickness, cv::LINE_AA);
  }
}

}  // namespace

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
  if (options_.draw_boxes) draw_detections(canvas, snap->detections, snap->scale);
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
