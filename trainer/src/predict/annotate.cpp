// Box drawing as Ultralytics' Annotator.box_label: boxes of line width lw, label text of scale
// lw/3 and thickness max(lw-1, 1) on a filled tab in the box colour.
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "yolo/trainer/plots.h"
#include "yolo/trainer/predict_results.h"

namespace yolo {
namespace {

// Dark text on light colours, white on dark ones (what Annotator.get_txt_color achieves with
// its list of light palette colours).
cv::Scalar text_colour(const cv::Scalar& bgr) {
  const double luma = 0.114 * bgr[0] + 0.587 * bgr[1] + 0.299 * bgr[2];
  return luma > 150 ? cv::Scalar(17, 31, 104) : cv::Scalar(255, 255, 255);
}

}  // namespace

int default_line_width(int height, int width) {
  const double v = std::nearbyint((height + width) / 2.0 * 0.003);  // ties to even, as Python
  return std::max(static_cast<int>(v), 2);
}

std::string detection_label(const Detection& d, const AnnotateOptions& options) {
  if (!options.show_labels) return {};
  return options.show_conf ? fmt::format("{} {:.2f}", d.class_name, d.confidence) : d.class_name;
}

void annotate_detections(cv::Mat& bgr, const std::vector<Detection>& detections,
                         const AnnotateOptions& options) {
  if (!options.show_boxes) return;
  const int lw =
      options.line_width > 0 ? options.line_width : default_line_width(bgr.rows, bgr.cols);
  const int tf = std::max(lw - 1, 1);
  const double sf = lw / 3.0;
  // Drawn lowest confidence first so that the most confident boxes end on top.
  for (auto it = detections.rbegin(); it != detections.rend(); ++it) {
    const Detection& d = *it;
    const cv::Scalar colour = class_colour(d.class_id);
    cv::Point p1(static_cast<int>(d.x1), static_cast<int>(d.y1));
    const cv::Point p2(static_cast<int>(d.x2), static_cast<int>(d.y2));
    cv::rectangle(bgr, p1, p2, colour, lw, cv::LINE_AA);
    const std::string label = detection_label(d, options);
    if (label.empty()) continue;
    int baseline = 0;
    cv::Size text = cv::getTextSize(label, cv::FONT_HERSHEY_SIMPLEX, sf, tf, &baseline);
    text.height += 3;                                                // padding around the text
    const bool outside = p1.y >= text.height;                        // room above the box
    if (p1.x > bgr.cols - text.width) p1.x = bgr.cols - text.width;  // keep it in the image
    const cv::Point tab_end(p1.x + text.width, outside ? p1.y - text.height : p1.y + text.height);
    cv::rectangle(bgr, p1, tab_end, colour, cv::FILLED, cv::LINE_AA);
    cv::putText(bgr, label, {p1.x, outside ? p1.y - 2 : p1.y + text.height - 1},
                cv::FONT_HERSHEY_SIMPLEX, sf, text_colour(colour), tf, cv::LINE_AA);
  }
}

}  // namespace yolo
