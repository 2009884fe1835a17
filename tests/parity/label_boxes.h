// What the parity tests compare of `yolo-trainer predict` and `val` with Ultralytics' own: boxes
// as predict writes them (save_txt=True save_conf=True, or Ultralytics' xywhn rows), and the "all"
// row of the val table.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace yolo::parity {

// One box, centre and size normalised to the image (YOLO's label layout), with its confidence.
struct LabelBox {
  double cx, cy, w, h, conf;
  int cls;
};

inline double iou(const LabelBox& a, const LabelBox& b) {
  const double ix = std::max(
      0.0, std::min(a.cx + a.w / 2, b.cx + b.w / 2) - std::max(a.cx - a.w / 2, b.cx - b.w / 2));
  const double iy = std::max(
      0.0, std::min(a.cy + a.h / 2, b.cy + b.h / 2) - std::max(a.cy - a.h / 2, b.cy - b.h / 2));
  const double inter = ix * iy;
  const double uni = a.w * a.h + b.w * b.h - inter;
  return uni > 0 ? inter / uni : 0;
}

// Our save_txt=True save_conf=True files: "cls cx cy w h conf" per line; none when absent.
inline std::vector<LabelBox> read_label_boxes(const std::filesystem::path& file) {
  std::vector<LabelBox> out;
  std::ifstream in(file);
  LabelBox b{};
  while (in >> b.cls >> b.cx >> b.cy >> b.w >> b.h >> b.conf) out.push_back(b);
  return out;
}

// Ultralytics' predict rows as tools/parity/ultralytics_pt.py prints them: [cx, cy, w, h, conf,
// cls], normalised.
inline std::vector<LabelBox> label_boxes(const nlohmann::json& rows) {
  std::vector<LabelBox> out;
  for (const auto& r : rows) out.push_back({r[0], r[1], r[2], r[3], r[4], r[5].get<int>()});
  return out;
}

// How many of `want` find a box of `have` (each used once) of the same class, at IoU >= min_iou
// and with a confidence within conf_tolerance.
inline int count_matched(const std::vector<LabelBox>& want, const std::vector<LabelBox>& have,
                         double min_iou, double conf_tolerance) {
  std::vector<bool> used(have.size(), false);
  int matched = 0;
  for (const LabelBox& w : want) {
    for (std::size_t i = 0; i < have.size(); ++i) {
      if (used[i] || have[i].cls != w.cls || std::abs(have[i].conf - w.conf) > conf_tolerance ||
          iou(have[i], w) < min_iou)
        continue;
      used[i] = true;
      ++matched;
      break;
    }
  }
  return matched;
}

// The val table's "all" row: Class Images Instances P R mAP50 mAP50-95; -1s when absent.
struct ValRow {
  double p = -1, r = -1, map50 = -1, map = -1;
  int instances = -1;
};
inline ValRow val_row(const std::string& output) {
  static const std::regex row(
      R"(\n\s+all\s+\d+\s+(\d+)\s+([0-9.e-]+)\s+([0-9.e-]+)\s+([0-9.e-]+)\s+([0-9.e-]+))");
  std::smatch m;
  ValRow v;
  if (!std::regex_search(output, m, row)) return v;
  v.instances = std::stoi(m[1]);
  v.p = std::stod(m[2]);
  v.r = std::stod(m[3]);
  v.map50 = std::stod(m[4]);
  v.map = std::stod(m[5]);
  return v;
}

}  // namespace yolo::parity
