// One track inside the tracker (Ultralytics' STrack / BOTrack) and the box arithmetic around it.
// The precision follows Ultralytics on purpose: detection boxes and every IoU are float32 (numpy
// float32 arrays there), the Kalman state is float64, and score thresholds compare in float32
// (numpy 2 compares a float32 array with a Python float in float32).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "kalman_filter.h"
#include "yolo/tracking/assignment.h"

namespace yolo::tracking {

enum class TrackPhase { kNew, kTracked, kLost, kRemoved };

struct TrackState {
  int64_t serial = 0;           // internal identity: one per started track, never reused
  int64_t public_id = 0;        // the reported id, given on confirmation (0 before)
  std::array<float, 4> tlwh{};  // the detection's box: left, top, width, height
  bool has_state = false;       // false for a detection that has not started a track
  StateMean mean = StateMean::Zero();
  StateCovariance cov = StateCovariance::Zero();
  bool activated = false;  // confirmed
  TrackPhase phase = TrackPhase::kNew;
  float score = 0;
  int class_id = 0;
  int detection_index = -1;
  int64_t frame_id = 0;  // last frame it was matched on
  int64_t start_frame = 0;
  int64_t tracklet_len = 0;
};

// The box as x1, y1, x2, y2: from the Kalman state when there is one, else the detection's.
std::array<float, 4> track_xyxy(const TrackState& t, BoxEncoding encoding);

// The detection's box as the filter measures it (xyah or xywh), computed in float32.
Measurement measure(const std::array<float, 4>& tlwh, BoxEncoding encoding);

// 1 - IoU for every pair, in float32 with Ultralytics' eps (1e-7 added to the union).
std::vector<float> iou_distance(const std::vector<std::array<float, 4>>& a,
                                const std::vector<std::array<float, 4>>& b);

// 1 - (1 - cost) * score per detection column, in float32.
void fuse_score(std::vector<float>& cost, int rows, const std::vector<float>& scores);

CostMatrix to_cost_matrix(const std::vector<float>& cost, int rows, int cols);

}  // namespace yolo::tracking
