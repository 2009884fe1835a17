// Detections and frame results, and their JSON (the contract in shared/DESIGN.md).
//
// JSON of a frame result (field names are stable; documented in docs/detections-json.md):
//   {"stream_id": "cam1", "seq": 12, "frame": 345, "pts_ns": 11500000000,
//    "timestamp": "2026-11-30T05:44:25.123Z", "width": 1920, "height": 1080,
//    "detections": [{"x1": 10.5, "y1": 20.0, "x2": 110.0, "y2": 220.25,
//                    "confidence": 0.91, "class_id": 0, "class_name": "person",
//                    "track_id": 7}]}
// Coordinates are source-frame pixels; pts_ns is -1 when the source has no timestamps.
// track_id is there only when a tracker gave the detection an identity (tracking on).
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "yolo/core/utc_time.h"  // format_utc, for the results' timestamps

namespace yolo {

struct Detection {
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;  // source-frame pixels
  float confidence = 0;                  // 0..1
  int class_id = 0;
  std::string class_name;
  // The object's identity over time (from 1 per stream, yolo/tracking/tracker.h) when a tracker
  // ran; 0 when not tracked. Tracked boxes are the tracker's filtered ones.
  int64_t track_id = 0;
};

struct FrameResult {
  std::string stream_id;
  uint64_t seq = 0;     // per-stream sequence number, assigned by the ResultsStore (from 1)
  int64_t frame = 0;    // frame number within the stream
  int64_t pts_ns = -1;  // presentation timestamp in nanoseconds, -1 if unknown
  std::chrono::system_clock::time_point wall_time{};  // when the result was produced
  int width = 0, height = 0;                          // source frame size in pixels
  std::vector<Detection> detections;
};

// Rows of x1, y1, x2, y2, confidence, class (as produced by the postprocessing) -> detections,
// with names from the model's metadata ("class N" for ids without a name).
std::vector<Detection> detections_from_rows(const float* rows, int64_t count,
                                            const std::map<int, std::string>& names);
// The same into `out`, whose elements (and their names' buffers) are reused.
void detections_from_rows(const float* rows, int64_t count, const std::map<int, std::string>& names,
                          std::vector<Detection>& out);

nlohmann::json to_json(const Detection& d);
nlohmann::json to_json(const FrameResult& r);

}  // namespace yolo
