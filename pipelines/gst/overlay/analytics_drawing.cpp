#include "analytics_drawing.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <string>

namespace yolo::gst {
namespace {

const cv::Scalar kLineColour(0, 220, 255);  // BGR: amber
const cv::Scalar kZoneColour(255, 180, 0);  // BGR: sky blue

// A label whose tab sits at `at`: the overlay draws a detection's label above its box.
Detection label_at(cv::Point at, std::string text, int class_id) {
  Detection d;
  d.x1 = static_cast<float>(at.x);
  d.y1 = static_cast<float>(at.y);
  d.x2 = d.x1 + 1;
  d.y2 = d.y1 + 1;
  d.confidence = std::numeric_limits<float>::quiet_NaN();  // no score shown
  d.class_id = class_id;
  d.class_name = std::move(text);
  return d;
}

std::vector<cv::Point> points_of(const nlohmann::json& list) {
  std::vector<cv::Point> out;
  for (const auto& p : list)
    out.emplace_back(static_cast<int>(std::lround(p[0].get<double>())),
                     static_cast<int>(std::lround(p[1].get<double>())));
  return out;
}

}  // namespace

AnalyticsDrawing analytics_drawing(const AnalyticsMetaFields& meta, int line_width) {
  AnalyticsDrawing d;
  const nlohmann::json geometry = nlohmann::json::parse(meta.geometry, nullptr, false);
  const nlohmann::json counts = nlohmann::json::parse(meta.counts, nullptr, false);
  if (!geometry.is_object() || !counts.is_object()) return d;
  try {
    std::map<std::string, nlohmann::json> line_counts, zone_counts;
    for (const auto& l : counts.value("lines", nlohmann::json::array()))
      line_counts[l["name"].get<std::string>()] = l;
    for (const auto& z : counts.value("zones", nlohmann::json::array()))
      zone_counts[z["name"].get<std::string>()] = z;
    for (const auto& l : geometry.value("lines", nlohmann::json::array())) {
      const std::string name = l["name"];
      std::vector<cv::Point> points = points_of(l["points"]);
      if (points.size() != 2) continue;
      const nlohmann::json& c = line_counts[name];
      d.labels.push_back(
          label_at(points[0] + (points[1] - points[0]) / 2,
                   fmt::format("{} in {} out {}", name, c.value("in", 0), c.value("out", 0)), 0));
      d.shapes.push_back({std::move(points), kLineColour, line_width});
    }
    for (const auto& z : geometry.value("zones", nlohmann::json::array())) {
      const std::string name = z["name"];
      std::vector<cv::Point> points = points_of(z["points"]);
      if (points.size() < 3) continue;
      d.labels.push_back(
          label_at(points[0],
                   fmt::format("{} {} inside", name, zone_counts[name].value("occupancy", 0)), 1));
      points.push_back(points.front());  // closed
      d.shapes.push_back({std::move(points), kZoneColour, line_width});
    }
  } catch (const nlohmann::json::exception&) {
    return {};  // not the shape yoloanalytics writes: draw nothing of it
  }
  return d;
}

}  // namespace yolo::gst
