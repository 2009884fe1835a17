// Trails of tracked objects for yolooverlay's `trails` property: the last N centre points of each
// track id, drawn as a polyline behind its box (as Ultralytics' track examples draw a track's
// history). State of one overlay instance, used on its streaming thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <opencv2/core/types.hpp>
#include <vector>

#include "video_frames.h"
#include "yolo/runtime/detection.h"

namespace yolo::gst {

class TrackTrails {
 public:
  // Adds the box centres of one frame's tracked detections (track_id > 0) and returns the trails
  // of those tracks: up to `length` points each, oldest first, in the class colour. Only frames
  // with detections count as frames here (frames between inferences carry none), and an id
  // missing from `length` such frames in a row is forgotten, so memory stays bounded.
  std::vector<TrailDrawing> update(const std::vector<Detection>& detections, size_t length,
                                   int line_width);
  // Forgets every trail (ids start again upstream: IdResetRule).
  void clear();
  size_t size() const { return histories_.size(); }

 private:
  struct History {
    std::deque<cv::Point> points;
    uint64_t last_seen = 0;
  };
  std::map<int64_t, History> histories_;
  uint64_t frame_ = 0;
};

}  // namespace yolo::gst
