// Ultralytics' letterbox (data/augment.py LetterBox) on OpenCV images: the CPU reference of the
// preprocessing contract in shared/DESIGN.md, used by trainer validation/prediction and by the
// runtime's image path. The geometry (sizes, gains, padding) is letterbox_geometry.h; this adds
// the pixels: resize with INTER_LINEAR, pad with pad_value.
#pragma once

#include <opencv2/core/mat.hpp>

#include "yolo/runtime/letterbox_geometry.h"

namespace yolo {

// Letterboxes an 8-bit image (any channel count). `transform`, if given, receives the geometry.
cv::Mat letterbox(const cv::Mat& image, const LetterboxOptions& opts,
                  LetterboxTransform* transform = nullptr);

// Maps boxes from letterboxed to source pixels and clips them to the source image, in place.
// boxes: rows of x1, y1, x2, y2 (any extra columns are left alone), CV_32F, N x (>= 4).
void boxes_to_source(cv::Mat& boxes, const LetterboxTransform& t);

}  // namespace yolo
