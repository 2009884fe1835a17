// One multi-object tracker for one stream: ByteTrack or BoT-SORT, step for step as Ultralytics
// runs them (ultralytics/trackers/byte_tracker.py and bot_sort.py, 8.4.190), so that the same
// detections give the same tracks (tests/tracking/test_tracker_parity.cpp checks it).
//
// Each update() takes one frame's detections (after NMS, in frame pixels) and returns the
// confirmed tracks of that frame: a track is confirmed by its second matched frame (or at once on
// a stream's first frame), and stays reported while it is matched; a track that misses frames is
// "lost" (not reported) for up to track_buffer frames and keeps its id when it is found again.
//
// Ids start at 1 per tracker and are given when a track is first confirmed, so reported ids have
// no gaps (Ultralytics numbers tentative tracks too, so its ids skip the ones that never
// confirmed; the tracks are the same).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "yolo/tracking/tracker_config.h"

namespace cv {
class Mat;
}

namespace yolo::tracking {

// A detection handed to the tracker: a box in frame pixels, its score and class.
struct TrackerDetection {
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;
  float score = 0;
  int class_id = 0;
};

// A confirmed track in the frame just given to update().
struct Track {
  int64_t id = 0;                        // from 1, per tracker
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;  // the Kalman-filtered box, frame pixels
  float score = 0;                       // of the detection matched this frame
  int class_id = 0;                      // of the detection matched this frame
  int detection_index = -1;              // that detection's index in update()'s input
  int64_t first_frame = 0;               // the tracker frame (from 1) it started on
  int64_t frames_since_found = 0;        // matched frames since it started or was found again
};

class Tracker {
 public:
  explicit Tracker(const TrackerConfig& config);
  ~Tracker();
  Tracker(Tracker&&) noexcept;
  Tracker& operator=(Tracker&&) noexcept;
  Tracker(const Tracker&) = delete;
  Tracker& operator=(const Tracker&) = delete;

  // One frame. `frame` (BGR or grey, any size the detections are in) feeds BoT-SORT's motion
  // compensation; without it (nullptr or empty) the camera is taken as still. Detections with a
  // non-finite value, zero width or zero height are skipped (counted in skipped_detections()).
  std::vector<Track> update(const std::vector<TrackerDetection>& detections,
                            const cv::Mat* frame = nullptr);

  // Ids of the confirmed tracks that ended in the last update() (lost too long, or replaced by a
  // duplicate): for events such as "left the scene".
  const std::vector<int64_t>& ended_ids() const;

  // Starts over: no tracks, frame count 0, ids from 1 again, motion compensation forgotten.
  void reset();

  const TrackerConfig& config() const;
  int64_t frame_count() const;         // update() calls since the last reset
  int64_t skipped_detections() const;  // since construction

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace yolo::tracking
