#include "yolo/runtime/annotate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <opencv2/imgproc.hpp>
#include <stdexcept>

namespace yolo {
namespace {

// Dark text on light colours, white on dark ones (what Annotator.get_txt_color achieves with
// its list of light palette colours).
cv::Scalar text_colour(const cv::Scalar& bgr) {
  const double luma = 0.114 * bgr[0] + 0.587 * bgr[1] + 0.299 * bgr[2];
  return luma > 150 ? cv::Scalar(17, 31, 104) : cv::Scalar(255, 255, 255);
}

cv::Scalar in_order(const cv::Scalar& bgr, ChannelOrder order) {
  if (order == ChannelOrder::kBGR) return cv::Scalar(bgr[0], bgr[1], bgr[2], 255);
  return cv::Scalar(bgr[2], bgr[1], bgr[0], 255);
}

}  // namespace

cv::Scalar class_colour(int class_id) {
  // Ultralytics' palette (hex RGB).
  static const uint32_t kHex[] = {0xFF3838, 0xFF9D97, 0xFF701F, 0xFFB21D, 0xCFD231,
                                  0x48F90A, 0x92CC17, 0x3DDB86, 0x1A9334, 0x00D4BB,
                                  0x2C99A8, 0x00C2FF, 0x344593, 0x6473FF, 0x0018EC,
                                  0x8438FF, 0x520085, 0xCB38FF, 0xFF95C8, 0xFF37C7};
  constexpr int kCount = static_cast<int>(sizeof kHex / sizeof kHex[0]);
  const uint32_t c = kHex[((class_id % kCount) + kCount) % kCount];
  return cv::Scalar(c & 0xFF, (c >> 8) & 0xFF, (c >> 16) & 0xFF);
}

int default_line_width(int height, int width) {
  const double v = std::nearbyint((height + width) / 2.0 * 0.003);  // ties to even, as Python
  return std::max(static_cast<int>(v), 2);
}

std::string detection_label(const Detection& d, const AnnotateOptions& options) {
  if (!options.show_labels) return {};
  // NaN: a region without a score (another GStreamer element's), labelled by its name only.
  const bool scored = !std::isnan(d.confidence);
  const std::string name = options.show_conf && scored
                               ? fmt::format("{} {:.2f}", d.class_name, d.confidence)
                               : d.class_name;
  // Ultralytics' label for a tracked box: "id:7 person 0.91".
  return d.track_id > 0 ? fmt::format("id:{} {}", d.track_id, name) : name;
}

std::vector<BoxDrawing> layout_detections(int height, int width,
                                          const std::vector<Detection>& detections,
                                          const AnnotateOptions& options, double scale) {
  std::vector<BoxDrawing> out;
  if (!options.show_boxes) return out;
  const int lw = options.line_width > 0 ? options.line_width : default_line_width(height, width);
  const int tf = std::max(lw - 1, 1);
  const double sf = lw / 3.0;
  for (auto it = detections.rbegin(); it != detections.rend(); ++it) {
    const Detection& d = *it;
    BoxDrawing b;
    b.line_width = lw;
    b.colour = class_colour(d.class_id);
    b.p1 = {static_cast<int>(d.x1 * scale), static_cast<int>(d.y1 * scale)};
    b.p2 = {static_cast<int>(d.x2 * scale), static_cast<int>(d.y2 * scale)};
    b.label = detection_label(d, options);
    b.font_scale = sf;
    b.text_thickness = tf;
    b.text_colour = text_colour(b.colour);
    if (!b.label.empty()) {
      int baseline = 0;
      cv::Size text = cv::getTextSize(b.label, cv::FONT_HERSHEY_SIMPLEX, sf, tf, &baseline);
      text.height += 3;  // padding around the text
      cv::Point p1 = b.p1;
      const bool outside = p1.y >= text.height;                  // room above the box
      if (p1.x > width - text.width) p1.x = width - text.width;  // keep it in the image
      b.tab_p1 = p1;
      b.tab_p2 = {p1.x + text.width, outside ? p1.y - text.height : p1.y + text.height};
      b.text_origin = {p1.x, outside ? p1.y - 2 : p1.y + text.height - 1};
    }
    out.push_back(std::move(b));
  }
  return out;
}

void annotate_detections(cv::Mat& image, const std::vector<Detection>& detections,
                         const AnnotateOptions& options, double scale, ChannelOrder order) {
  if (image.depth() != CV_8U || (image.channels() != 3 && image.channels() != 4)) {
    throw std::invalid_argument(fmt::format(
        "annotate: need an 8-bit image with 3 or 4 channels, got type {}", image.type()));
  }
  for (const BoxDrawing& b :
       layout_detections(image.rows, image.cols, detections, options, scale)) {
    const cv::Scalar colour = in_order(b.colour, order);
    cv::rectangle(image, b.p1, b.p2, colour, b.line_width, cv::LINE_AA);
    if (b.label.empty()) continue;
    cv::rectangle(image, b.tab_p1, b.tab_p2, colour, cv::FILLED, cv::LINE_AA);
    cv::putText(image, b.label, b.text_origin, cv::FONT_HERSHEY_SIMPLEX, b.font_scale,
                in_order(b.text_colour, order), b.text_thickness, cv::LINE_AA);
  }
}

}  // namespace yolo
