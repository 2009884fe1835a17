// OpenCV images as FrameViews (frame_view.h): the OpenCV edge of the device-side preprocessing.
#pragma once

#include <opencv2/core/mat.hpp>

#include "yolo/runtime/frame_view.h"

namespace yolo {

// A packed OpenCV image (any row step, ROIs too) read as `format`, described in place. Throws
// std::invalid_argument unless it is 8-bit with bytes_per_pixel(format) channels.
FrameView frame_view_of_mat(const cv::Mat& image, PixelFormat format = PixelFormat::kBGR);

}  // namespace yolo
