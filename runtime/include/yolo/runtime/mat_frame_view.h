// OpenCV images as FrameViews (frame_view.h) and FrameViews as OpenCV images: the OpenCV edge of
// the frame preprocessing.
#pragma once

#include <opencv2/core/mat.hpp>

#include "yolo/core/yuv_colour.h"
#include "yolo/runtime/frame_view.h"

namespace yolo {

// A packed OpenCV image (any row step, ROIs too) read as `format`, described in place. Throws
// std::invalid_argument unless it is 8-bit with bytes_per_pixel(format) channels.
FrameView frame_view_of_mat(const cv::Mat& image, PixelFormat format = PixelFormat::kBGR);

// What bgr_of_frame() converts into. Kept by a caller that converts frame after frame, a frame of
// the same size then allocates nothing.
struct BgrScratch {
  cv::Mat bgr;
  cv::Mat stacked_yuv;  // I420 planes made contiguous for cv::cvtColor
};

// The frame as 8-bit BGR: a view of a BGR frame (valid while the frame is), else a conversion
// into `scratch.bgr`, which is returned. YUV frames are converted with `matrix` and `range`
// (yolo/core/yuv_colour.h; BT.601 limited range of even size through cv::cvtColor, the same
// bytes); odd sizes read chroma planes rounded up, as GStreamer lays them out.
cv::Mat bgr_of_frame(const FrameView& frame, YuvMatrix matrix, YuvRange range, BgrScratch& scratch);

}  // namespace yolo
