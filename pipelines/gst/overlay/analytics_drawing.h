// What yolooverlay draws of a frame's YoloAnalyticsMeta: the lines and zones as polylines, and a
// label at each with its live count ("entrance in 3 out 1", "queue 2 inside").
#pragma once

#include <vector>

#include "video_frames.h"
#include "yolo/gst/analytics_meta.h"
#include "yolo/runtime/detection.h"

namespace yolo::gst {

struct AnalyticsDrawing {
  std::vector<TrailDrawing> shapes;  // lines open, zones closed
  std::vector<Detection> labels;     // a 1-pixel box at the label's place, the text as class name
};

// Empty for a meta whose JSON does not parse (the overlay then draws only the boxes).
AnalyticsDrawing analytics_drawing(const AnalyticsMetaFields& meta, int line_width);

}  // namespace yolo::gst
