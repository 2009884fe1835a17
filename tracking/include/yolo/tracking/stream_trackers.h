// One tracker per stream, as Ultralytics keeps one per source of a batch and DeepStream's
// nvtracker one per pad: a stream's ids start at 1 and never mix with another stream's.
//
// When ids reset (the documented contract, like nvtracker's tracking-id-reset-mode): a stream is
// reset by reset(stream) (the GStreamer element calls it on stream-start, flush-stop and a new
// segment; predict when a new video starts), and a stream seen for the first time starts fresh.
// Frames of a stream must come in order; streams may interleave freely.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "yolo/tracking/tracker.h"

namespace yolo::tracking {

class StreamTrackers {
 public:
  explicit StreamTrackers(TrackerConfig config);

  // The stream's tracker, made on first use.
  Tracker& tracker(const std::string& stream);
  std::vector<Track> update(const std::string& stream,
                            const std::vector<TrackerDetection>& detections,
                            const cv::Mat* frame = nullptr);
  // Starts the stream over (ids from 1 again); a stream without a tracker is left alone.
  void reset(const std::string& stream);
  // Forgets a stream that has gone for good (its memory is freed).
  void remove(const std::string& stream);
  size_t size() const { return trackers_.size(); }
  const TrackerConfig& config() const { return config_; }

 private:
  TrackerConfig config_;
  std::map<std::string, Tracker> trackers_;
};

}  // namespace yolo::tracking
