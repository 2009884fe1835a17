#include "track_trails.h"

#include <cmath>

#include "yolo/runtime/annotate.h"

namespace yolo::gst {

std::vector<TrailDrawing> TrackTrails::update(const std::vector<Detection>& detections,
                                              size_t length, int line_width) {
  std::vector<TrailDrawing> out;
  if (length == 0 || detections.empty()) return out;
  ++frame_;
  for (const Detection& d : detections) {
    if (d.track_id <= 0) continue;
    History& h = histories_[d.track_id];
    h.last_seen = frame_;
    h.points.emplace_back(cvRound((d.x1 + d.x2) / 2), cvRound((d.y1 + d.y2) / 2));
    while (h.points.size() > length) h.points.pop_front();
    TrailDrawing t;
    t.points.assign(h.points.begin(), h.points.end());
    t.colour = class_colour(d.class_id);
    t.line_width = line_width;
    out.push_back(std::move(t));
  }
  for (auto it = histories_.begin(); it != histories_.end();) {
    it = frame_ - it->second.last_seen >= length ? histories_.erase(it) : std::next(it);
  }
  return out;
}

void TrackTrails::clear() {
  histories_.clear();
  frame_ = 0;
}

}  // namespace yolo::gst
