#include "yolo/runtime/letterbox.h"

#include <algorithm>
#include <opencv2/imgproc.hpp>
#include <stdexcept>

namespace yolo {

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
