// Text forms of a frame's detections: YOLO label lines and the console summary.
#include <fmt/format.h>

#include <map>

#include "yolo/predict/predict_results.h"

namespace yolo {

std::string format_label_lines(const std::vector<Detection>& detections, int width, int height,
                               bool save_conf) {
  std::string out;
  if (width <= 0 || height <= 0) return out;
  for (const Detection& d : detections) {
    const double cx = (static_cast<double>(d.x1) + d.x2) / 2.0 / width;
    const double cy = (static_cast<double>(d.y1) + d.y2) / 2.0 / height;
    const double w = (d.x2 - d.x1) / static_cast<double>(width);
    const double h = (d.y2 - d.y1) / static_cast<double>(height);
    // fmt's {:g} is printf's %g: 6 significant digits, no trailing zeros, as Python's "%g".
    out += fmt::format("{} {:g} {:g} {:g} {:g}", d.class_id, cx, cy, w, h);
    if (save_conf) out += fmt::format(" {:g}", d.confidence);
    if (d.track_id > 0) out += fmt::format(" {}", d.track_id);  // as Ultralytics' track
    out += '\n';
  }
  return out;
}

std::string summarize_detections(const std::vector<Detection>& detections) {
  if (detections.empty()) return "(no detections)";
  std::map<int, std::pair<int, std::string>> per_class;  // id -> (count, name), id order
  for (const Detection& d : detections) {
    auto& entry = per_class[d.class_id];
    ++entry.first;
    entry.second = d.class_name;
  }
  std::string out;
  for (const auto& [id, entry] : per_class) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {}{}", entry.first, entry.second, entry.first > 1 ? "s" : "");
  }
  return out;
}

}  // namespace yolo
