// The validation results table: DetectionValidator.get_desc and print_results
// (models/yolo/detect/val.py), formatted with the same printf-style patterns.
#include <cstdio>
#include <string>

#include "yolo/trainer/metrics/metrics.h"

namespace yolo::metrics {
namespace {

// Python's `pf % (...)` for pf = "%22s" + "%11i" * 2 + "%11.3g" * 4.
std::string format_row(const std::string& name, int images, int instances, double p, double r,
                       double map50, double map50_95) {
  constexpr const char* kFormat = "%22s%11i%11i%11.3g%11.3g%11.3g%11.3g\n";
  const int size =
      std::snprintf(nullptr, 0, kFormat, name.c_str(), images, instances, p, r, map50, map50_95);
  std::string line(static_cast<std::size_t>(size) + 1, '\0');
  std::snprintf(line.data(), line.size(), kFormat, name.c_str(), images, instances, p, r, map50,
                map50_95);
  line.pop_back();  // the terminating NUL
  return line;
}

}  // namespace

std::string metrics_table_header() {
  char line[128];
  std::snprintf(line, sizeof line, "%22s%11s%11s%11s%11s%11s%11s", "Class", "Images", "Instances",
                "Box(P", "R", "mAP50", "mAP50-95)");
  return line;
}

std::string format_metrics_table(const DetectionMetrics& metrics,
                                 const std::map<int, std::string>& names, bool per_class) {
  std::string out = metrics_table_header() + ":\n";
  out += format_row("all", metrics.images, metrics.instances(), metrics.mp, metrics.mr,
                    metrics.map50, metrics.map50_95);
  if (!per_class || names.size() <= 1) return out;
  for (std::size_t i = 0; i < metrics.per_class.classes.size(); ++i) {
    const ClassMetrics row = metrics.class_result(i);
    const auto it = names.find(row.cls);
    out += format_row(it == names.end() ? std::to_string(row.cls) : it->second, row.images,
                      row.instances, row.p, row.r, row.ap50, row.ap50_95);
  }
  return out;
}

}  // namespace yolo::metrics
