// The latest frame of each stream, for GET /api/v1/streams/{id}/snapshot.jpg. A producer that
// wants snapshots hands over frames with their results (every frame, or every Nth: each put()
// copies the pixels); the HTTP server asks for a stream's JPEG, which is drawn and encoded on
// request, not per frame. Only the newest frame per stream is kept, downscaled to fit
// max_width x max_height, for at most max_streams streams: memory stays below
// max_streams x max_width x max_height x 3 bytes. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <opencv2/core/mat.hpp>
#include <optional>
#include <string>
#include <vector>

#include "yolo/runtime/detection.h"

namespace yolo {

struct SnapshotOptions {
  size_t max_streams = 64;  // streams with a kept frame (>= 1); frames of more streams are refused
  int max_width = 1280;     // larger frames are downscaled to fit (aspect kept), in pixels (>= 1)
  int max_height = 720;     // (>= 1)
  int jpeg_quality = 85;    // 1..100
  bool draw_boxes = true;   // draw the result's boxes and labels onto the snapshot
};

class SnapshotStore {
 public:
  // Throws std::invalid_argument for options outside the ranges above.
  explicit SnapshotStore(SnapshotOptions options = {});

  // Keeps a copy of `frame` (8-bit BGR or grey, any size) as the latest frame of
  // result.stream_id, with result's detections (source-frame pixels). The caller may reuse its
  // buffer right after. Returns false, keeping nothing, when the stream is new and max_streams
  // streams are kept already. Throws std::invalid_argument for an empty frame or another type.
  bool put(const FrameResult& result, const cv::Mat& frame);

  // The stream's latest frame, boxes drawn, JPEG-encoded; nullopt when none is kept.
  std::optional<std::vector<unsigned char>> jpeg(const std::string& stream_id) const;

  bool has(const std::string& stream_id) const;
  void remove(const std::string& stream_id);

 private:
  // Immutable once stored: readers take a reference and draw outside the lock.
  struct Snapshot {
    cv::Mat image;                      // the kept pixels, possibly downscaled
    double scale = 1;                   // kept pixels per source pixel
    std::vector<Detection> detections;  // source-frame pixels
  };

  const SnapshotOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const Snapshot>> latest_;
};

}  // namespace yolo
