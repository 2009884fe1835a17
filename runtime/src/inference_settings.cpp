#include "yolo/runtime/inference_settings.h"

#include <fmt/format.h>

namespace yolo {

const char* SettingNames::in(SettingFront front) const {
  switch (front) {
    case SettingFront::kCommandLine:
      return command_line;
    case SettingFront::kMonitorYaml:
      return monitor_yaml;
    case SettingFront::kElement:
      return element;
  }
  return "";
}

std::string range_problem(const std::string& name, double value, SettingRange range) {
  if (value >= range.lo && value <= range.hi) return "";
  return fmt::format("{}={} is out of range: use {} to {}", name, value, range.lo, range.hi);
}

std::vector<std::string> InferenceSettings::problems(SettingFront front) const {
  const InferenceNames& n = kInferenceNames;
  std::vector<std::string> out;
  auto check = [&](const SettingNames& names, double value, SettingRange range) {
    if (std::string p = range_problem(names.in(front), value, range); !p.empty())
      out.push_back(std::move(p));
  };
  check(n.conf, conf, kConfRange);
  check(n.iou, iou, kIouRange);
  check(n.max_det, max_det, kMaxDetRange);
  if (std::string p = bf16_problem(front); !p.empty()) out.push_back(std::move(p));
  return out;
}

std::string InferenceSettings::bf16_problem(SettingFront front) const {
  if (bf16 == "auto" || bf16 == "true" || bf16 == "false") return "";
  return fmt::format("{}={} is not one of auto, true, false", kInferenceNames.bf16.in(front), bf16);
}

std::optional<bool> InferenceSettings::bf16_choice() const {
  if (bf16 == "auto") return std::nullopt;
  return bf16 == "true";
}

std::string classes_text(const std::vector<int>& ids) {
  std::string text;
  for (int id : ids) text += (text.empty() ? "" : ",") + std::to_string(id);
  return text;
}

std::vector<std::string> class_tokens(const std::string& classes) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= classes.size()) {
    size_t end = classes.find(',', start);
    if (end == std::string::npos) end = classes.size();
    const size_t first = classes.find_first_not_of(" \t", start);
    const size_t last = classes.find_last_not_of(" \t", end == 0 ? 0 : end - 1);
    if (first != std::string::npos && first < end && last != std::string::npos && last >= first)
      out.push_back(classes.substr(first, last - first + 1));
    start = end + 1;
  }
  return out;
}

}  // namespace yolo
