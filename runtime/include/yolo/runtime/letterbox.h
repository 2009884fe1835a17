// Ultralytics' letterbox (data/augment.py LetterBox) and its inverse: the one implementation of
// the preprocessing contract in shared/DESIGN.md, used by trainer validation/prediction and by
// the runtime alike.
//
// Forward: r = min(H/h, W/w) (capped at 1 without scaleup); the image is resized to
// (round(w*r), round(h*r)) with INTER_LINEAR (Python's round: half to even), then padded with
// 114 to (H, W); the padding is split top = round(dh/2 - 0.1), bottom = round(dh/2 + 0.1)
// (likewise left/right), so odd padding puts the extra pixel at the bottom/right. With
// auto_stride the padding is reduced modulo the stride (the output keeps the aspect ratio and
// is only a stride multiple).
#pragma once

#include <opencv2/core/mat.hpp>

namespace yolo {

struct LetterboxOptions {
  int height = 640, width = 640;  // target size (pixels)
  bool auto_stride = false;       // pad only to a multiple of `stride` (minimum rectangle)
  bool scale_fill = false;        // stretch to the target size, no padding (aspect not kept)
  bool scaleup = true;            // allow enlarging; false: only shrink (Ultralytics val)
  bool center = true;             // split the padding; false: pad bottom/right only
  int stride = 32;
  int pad_value = 114;
};

// How one source image maps into the letterboxed image: x_dst = x_src * gain_x + pad_left.
struct LetterboxTransform {
  int src_width = 0, src_height = 0;          // source image
  int out_width = 0, out_height = 0;          // letterboxed image
  int resized_width = 0, resized_height = 0;  // image content before padding
  double gain_x = 1, gain_y = 1;              // scale factors (equal unless scale_fill)
  int pad_left = 0, pad_top = 0, pad_right = 0, pad_bottom = 0;

  // Source -> letterboxed pixel coordinates.
  double to_dst_x(double x) const { return x * gain_x + pad_left; }
  double to_dst_y(double y) const { return y * gain_y + pad_top; }
  // Letterboxed -> source pixel coordinates (not clipped).
  double to_src_x(double x) const { return (x - pad_left) / gain_x; }
  double to_src_y(double y) const { return (y - pad_top) / gain_y; }
};

// Geometry only (no pixels): what letterbox() will do to an image of this size.
LetterboxTransform compute_letterbox(int src_height, int src_width, const LetterboxOptions& opts);

// Letterboxes an 8-bit image (any channel count). `transform`, if given, receives the geometry.
cv::Mat letterbox(const cv::Mat& image, const LetterboxOptions& opts,
                  LetterboxTransform* transform = nullptr);

// Maps boxes from letterboxed to source pixels and clips them to the source image, in place.
// boxes: rows of x1, y1, x2, y2 (any extra columns are left alone), CV_32F, N x (>= 4).
void boxes_to_source(cv::Mat& boxes, const LetterboxTransform& t);

}  // namespace yolo
