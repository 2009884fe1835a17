#include "yolo/runtime/letterbox_geometry.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace yolo {
namespace {

// Python's round(): half to even, which is what Ultralytics' arithmetic uses.
int py_round(double v) {
  return static_cast<int>(std::nearbyint(v));
}

}  // namespace

LetterboxTransform compute_letterbox(int src_height, int src_width, const LetterboxOptions& o) {
  if (src_height <= 0 || src_width <= 0) {
    throw std::invalid_argument("letterbox: empty source image (" + std::to_string(src_width) +
                                "x" + std::to_string(src_height) + ")");
  }
  if (o.height <= 0 || o.width <= 0 || o.stride <= 0) {
    throw std::invalid_argument("letterbox: target size and stride must be positive");
  }
  LetterboxTransform t;
  t.src_width = src_width;
  t.src_height = src_height;
  double r = std::min(static_cast<double>(o.height) / src_height,
                      static_cast<double>(o.width) / src_width);
  if (!o.scaleup) r = std::min(r, 1.0);
  t.gain_x = t.gain_y = r;
  t.resized_width = std::max(py_round(src_width * r), 1);  // thin images keep one pixel
  t.resized_height = std::max(py_round(src_height * r), 1);
  double dw = o.width - t.resized_width, dh = o.height - t.resized_height;
  if (o.auto_stride) {
    dw = std::fmod(dw, o.stride);
    dh = std::fmod(dh, o.stride);
  } else if (o.scale_fill) {
    dw = dh = 0;
    t.resized_width = o.width;
    t.resized_height = o.height;
    t.gain_x = static_cast<double>(o.width) / src_width;
    t.gain_y = static_cast<double>(o.height) / src_height;
  }
  t.back_gain_x = static_cast<double>(t.resized_width) / src_width;
  t.back_gain_y = static_cast<double>(t.resized_height) / src_height;
  if (o.center) {
    dw /= 2;
    dh /= 2;
    t.pad_top = py_round(dh - 0.1);
    t.pad_left = py_round(dw - 0.1);
  }
  t.pad_bottom = py_round(dh + 0.1);
  t.pad_right = py_round(dw + 0.1);
  t.out_width = t.resized_width + t.pad_left + t.pad_right;
  t.out_height = t.resized_height + t.pad_top + t.pad_bottom;
  return t;
}

}  // namespace yolo
