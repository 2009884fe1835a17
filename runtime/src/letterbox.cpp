#include "yolo/runtime/letterbox.h"

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>
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
  t.resized_width = py_round(src_width * r);
  t.resized_height = py_round(src_height * r);
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

cv::Mat letterbox(const cv::Mat& image, const LetterboxOptions& opts, LetterboxTransform* out) {
  if (image.empty()) throw std::invalid_argument("letterbox: empty image");
  if (image.depth() != CV_8U) throw std::invalid_argument("letterbox: expects an 8-bit image");
  LetterboxTransform t = compute_letterbox(image.rows, image.cols, opts);
  cv::Mat resized = image;
  if (t.resized_width != image.cols || t.resized_height != image.rows) {
    cv::resize(image, resized, cv::Size(t.resized_width, t.resized_height), 0, 0, cv::INTER_LINEAR);
  }
  cv::Mat result;
  cv::copyMakeBorder(resized, result, t.pad_top, t.pad_bottom, t.pad_left, t.pad_right,
                     cv::BORDER_CONSTANT, cv::Scalar::all(opts.pad_value));
  if (out) *out = t;
  return result;
}

void boxes_to_source(cv::Mat& boxes, const LetterboxTransform& t) {
  if (boxes.empty()) return;
  if (boxes.type() != CV_32F || boxes.cols < 4) {
    throw std::invalid_argument("boxes_to_source: expects CV_32F rows of x1, y1, x2, y2");
  }
  const auto w = static_cast<float>(t.src_width), h = static_cast<float>(t.src_height);
  for (int i = 0; i < boxes.rows; ++i) {
    float* b = boxes.ptr<float>(i);
    b[0] = std::clamp(static_cast<float>(t.to_src_x(b[0])), 0.f, w);
    b[1] = std::clamp(static_cast<float>(t.to_src_y(b[1])), 0.f, h);
    b[2] = std::clamp(static_cast<float>(t.to_src_x(b[2])), 0.f, w);
    b[3] = std::clamp(static_cast<float>(t.to_src_y(b[3])), 0.f, h);
  }
}

}  // namespace yolo
