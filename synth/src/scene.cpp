#include "scene.h"

#include <stdexcept>

#include <opencv2/imgproc.hpp>

namespace yolo::synth {

std::vector<VisiblePart> resolve_visibility(cv::Size image_size,
                                            const std::vector<SceneShape>& shapes,
                                            const std::vector<bool>& active) {
  // Owner map: 0 = background, i + 1 = shape i. 16 bits leave room for any shape count we allow.
  if (shapes.size() >= 65535) throw std::invalid_argument("synth: too many shapes in one scene");
  cv::Mat owner = cv::Mat::zeros(image_size, CV_16UC1);
  const cv::Rect frame(cv::Point(0, 0), image_size);
  std::vector<cv::Rect> rois(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!active[i]) continue;
    const ShapeRaster& r = shapes[i].raster;
    rois[i] = cv::Rect(r.origin, r.mask.size()) & frame;
    if (rois[i].empty()) continue;
    const cv::Mat local = r.mask(rois[i] - r.origin);
    owner(rois[i]).setTo(cv::Scalar(static_cast<double>(i + 1)), local);
  }

  std::vector<VisiblePart> parts;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!active[i]) continue;
    VisiblePart part;
    part.shape = static_cast<int>(i);
    part.roi = rois[i];
    if (!part.roi.empty()) {
      cv::compare(owner(part.roi), cv::Scalar(static_cast<double>(i + 1)), part.mask, cv::CMP_EQ);
      part.visible_area = cv::countNonZero(part.mask);
      if (part.visible_area > 0) part.box = cv::boundingRect(part.mask) + part.roi.tl();
    }
    const int area = shapes[i].raster.area;
    part.visibility = area > 0 ? static_cast<double>(part.visible_area) / area : 0.0;
    parts.push_back(std::move(part));
  }
  return parts;
}

void composite(cv::Mat& image, const std::vector<SceneShape>& shapes,
               const std::vector<VisiblePart>& parts) {
  for (const auto& part : parts) {
    if (part.visible_area == 0) continue;
    const SceneShape& s = shapes[part.shape];
    s.fill(part.roi - s.raster.origin).copyTo(image(part.roi), part.mask);
  }
}

}  // namespace yolo::synth
