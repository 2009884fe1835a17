#include "yolo/trainer/data/subset_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <map>

#include "yolo/models/model_metadata.h"
#include "yolo/trainer/settings/config.h"

namespace yolo {

void check_class_filter(const std::set<int>& classes, const DatasetConfig& data,
                        const std::vector<ImageRecord>& records, const std::string& split,
                        bool required) {
  if (classes.empty()) return;
  const std::string given = fmt::format("classes={}", fmt::join(classes, ","));
  for (int c : classes) {
    if (data.names.count(c)) continue;
    throw ConfigError(fmt::format("{}: {} is not a class of {} (it has {}); use these ids", given,
                                  c, data.yaml_path.string(), describe_classes(data.names)));
  }
  std::map<int, size_t> objects;  // class -> labelled objects in the split
  for (const ImageRecord& r : records)
    for (const LabelBox& b : r.boxes) ++objects[b.cls];
  size_t kept = 0;
  for (int c : classes) kept += objects.count(c) ? objects[c] : 0;
  if (kept > 0) return;
  std::vector<std::string> present;
  for (const auto& [c, n] : objects) {
    const auto name = data.names.find(c);
    present.push_back(
        fmt::format("{} {} ({})", n, name == data.names.end() ? "?" : name->second, c));
  }
  const std::string message = fmt::format(
      "{} keeps no labelled object of the '{}' split of {} ({} images; it has {}); give "
      "classes that occur there",
      given, split, data.yaml_path.string(), records.size(),
      present.empty() ? "no labelled objects at all" : fmt::format("{}", fmt::join(present, ", ")));
  if (required) throw ConfigError(message);
  spdlog::warn("{}: its metrics will be 0", message);
}

void filter_classes(std::vector<ImageRecord>& records, const std::set<int>& keep, bool single) {
  for (auto& r : records) {
    std::vector<LabelBox> boxes;
    for (auto b : r.boxes) {
      if (!keep.empty() && !keep.count(b.cls)) continue;
      if (single) b.cls = 0;
      boxes.push_back(b);
    }
    r.boxes = std::move(boxes);
  }
}

void check_fraction(double fraction, size_t images, const std::string& split) {
  if (fraction >= 1.0 || images == 0) return;
  const auto kept = static_cast<size_t>(std::round(static_cast<double>(images) * fraction));
  if (kept > 0) return;
  throw ConfigError(fmt::format(
      "fraction={} of the {} images of the '{}' split leaves 0 (it keeps round(images x "
      "fraction)); give at least {:.3g}, or 1.0 for every image",
      fraction, images, split, 0.5 / static_cast<double>(images)));
}

}  // namespace yolo
