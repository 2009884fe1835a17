// How detections leave the element: one GstVideoRegionOfInterestMeta per detection on the
// buffer, and (with post-messages) an element message per frame.
//
// ROI meta: x, y, w, h in the negotiated frame's pixels (rounded outwards to whole pixels and
// clipped to the frame), roi_type the label's quark, and a params structure
//   detection: confidence (double, 0..1), class-id (int), label (string),
//              x_min, y_min, x_max, y_max (double, normalised to 0..1: exact sub-pixel box)
// the same shape DL Streamer's gvadetect attaches, so existing consumers can read it.
//
// Message (GST_MESSAGE_ELEMENT from the element), structure "yolo-detections":
//   stream-id (string), frame (guint64, counted from 0 per stream), pts (GstClockTime,
//   GST_CLOCK_TIME_NONE if unknown), width, height (int), detections (GstValueList of
//   "detection" structures with x1, y1, x2, y2 (double, frame pixels), confidence, class-id,
//   label).
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

#include "yolo/runtime/detection.h"

namespace yolo::gst {

inline constexpr const char* kDetectionParams = "detection";
inline constexpr const char* kDetectionsMessage = "yolo-detections";

// The detections as their ROI metas carry them: boxes rounded outwards to whole pixels and
// clipped to the frame. What `draw=true` draws, so that it equals yolooverlay on the metas.
std::vector<Detection> as_roi_boxes(std::vector<Detection> detections, int width, int height);

void attach_roi_metas(GstBuffer* buffer, const std::vector<Detection>& detections, int width,
                      int height);

// Which regions read_roi_metas returns.
enum class RoiRegions {
  kDetections,  // only those with a "detection" structure (ours, or DL Streamer-shaped ones)
  kAll,         // also other elements' regions: named by their ROI type, confidence NaN
};

// Reads the ROI metas back (yolo-monitor, yolooverlay, tests, applications consuming the
// element's output), in the order they were attached. A missing label falls back to the ROI
// type's name, then to "class N".
std::vector<Detection> read_roi_metas(GstBuffer* buffer,
                                      RoiRegions regions = RoiRegions::kDetections);

// The message structure described above; the caller owns it.
GstStructure* detections_structure(const std::string& stream_id, guint64 frame, GstClockTime pts,
                                   int width, int height, const std::vector<Detection>& detections);

}  // namespace yolo::gst
