// From what the appsink hands over to what the results store, the snapshots and the JSON lines
// take: the `yolo` element's detections (one GstVideoRegionOfInterestMeta per detection, with a
// "detection" params structure: confidence (double), class-id (int), label (string); x, y, w, h
// in frame pixels) become a FrameResult, and the BGR frame becomes a cv::Mat view.
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <functional>
#include <opencv2/core/mat.hpp>
#include <optional>
#include <string>

#include "yolo/runtime/detection.h"

namespace yolo::monitor {

// The sample's detections and frame identity. `frame` is the caller's frame counter for the
// stream; pts_ns comes from the buffer (-1 without one); wall_time is now. Width and height
// come from the caps. ROI metas without a "detection" structure (from other elements) are
// skipped; a missing label falls back to the ROI type's name.
FrameResult frame_result_from_sample(GstSample* sample, const std::string& stream_id,
                                     int64_t frame);

// Maps the sample's buffer and calls `use` with its pixels as BGR, valid only during the call:
// a BGR frame is viewed in place (no copy, honouring the row stride); the other formats the
// `yolo` element passes on (RGB, BGRx, BGRA, RGBx, RGBA, and I420 / NV12 with the stream's
// colours, media/frame_colours.h) are converted first. Returns false, without calling, for
// other formats or a buffer that cannot be mapped.
bool with_bgr_frame(GstSample* sample, const std::function<void(const cv::Mat& bgr)>& use);

}  // namespace yolo::monitor
