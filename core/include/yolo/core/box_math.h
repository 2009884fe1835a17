// Box maths on single boxes, shared by the metrics, NMS, augmentation and the trackers (Ultralytics
// keeps the same jobs in utils/ops.py and utils/metrics.py). Plain floats: no LibTorch, no OpenCV,
// so any layer may use it. The tensor forms (conversions over a dimension, CIoU) are models/
// box_tensors.h.
#pragma once

#include <algorithm>

namespace yolo::boxes {

// Ultralytics' eps for IoU denominators (utils/metrics.py box_iou, bbox_ioa).
inline constexpr float kIouEps = 1e-7f;

// Corners in pixels: (x1, y1) top-left, (x2, y2) bottom-right.
struct Xyxy {
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;
};

// Centre and size.
struct Xywh {
  float cx = 0, cy = 0, w = 0, h = 0;
};

inline Xyxy to_xyxy(const Xywh& b) {
  const float hw = b.w / 2, hh = b.h / 2;
  return {b.cx - hw, b.cy - hh, b.cx + hw, b.cy + hh};
}

inline Xywh to_xywh(const Xyxy& b) {
  return {(b.x1 + b.x2) / 2, (b.y1 + b.y2) / 2, b.x2 - b.x1, b.y2 - b.y1};
}

// Width times height, not clamped (an inverted box has a negative area, as in Ultralytics).
inline float area(const Xyxy& b) {
  return (b.x2 - b.x1) * (b.y2 - b.y1);
}

// Area of the overlap; 0 when the boxes do not overlap. Most pairs NMS compares do not, so the
// width is tested before the height is computed.
inline float intersection(const Xyxy& a, const Xyxy& b) {
  const float w = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  if (!(w > 0)) return 0;
  const float h = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  return h > 0 ? w * h : 0;
}

// Intersection over union, inter / (area_a + area_b - inter + eps), in float32 as
// utils/metrics.py box_iou computes it on float32 tensors (whether an IoU equal to a threshold
// counts depends on that rounding). NMS passes eps = 0, as torchvision's nms divides.
inline float iou(const Xyxy& a, const Xyxy& b, float eps = kIouEps) {
  const float inter = intersection(a, b);
  return inter / (area(a) + area(b) - inter + eps);
}

// The same IoU from an intersection and both areas, for callers that compare one box with many
// and keep the areas (NMS).
inline float iou_of_areas(float inter, float area_a, float area_b, float eps = kIouEps) {
  return inter / (area_a + area_b - inter + eps);
}

// Intersection over the area of `box` alone: the fraction of `box` that lies inside `region`
// (utils/metrics.py bbox_ioa with box2 = box).
inline float ioa(const Xyxy& region, const Xyxy& box, float eps = kIouEps) {
  return intersection(region, box) / (area(box) + eps);
}

// The box clipped to an image of w x h pixels.
inline Xyxy clip(const Xyxy& b, float w, float h) {
  return {std::clamp(b.x1, 0.0f, w), std::clamp(b.y1, 0.0f, h), std::clamp(b.x2, 0.0f, w),
          std::clamp(b.y2, 0.0f, h)};
}

}  // namespace yolo::boxes
