#include "yolo/monitor/model_check.h"

#include <fmt/format.h>

#include <map>
#include <optional>

#include "yolo/models/checkpoint.h"
#include "yolo/serving/mqtt_output.h"

namespace yolo::monitor {

std::vector<std::string> check_models(const MonitorConfig& config) {
  std::vector<std::string> problems;
  // path -> class names, or nullopt when the file does not load (reported once).
  std::map<std::string, std::optional<std::map<int, std::string>>> loaded;
  for (const StreamConfig& stream : config.streams) {
    const StreamSettings s = resolve(stream, config);
    if (s.model.empty()) {
      problems.push_back(
          fmt::format("stream '{}': no model (set `model:` at the top level or "
                      "for the stream)",
                      stream.id));
      continue;
    }
    auto it = loaded.find(s.model);
    if (it == loaded.end()) {
      std::optional<std::map<int, std::string>> names;
      try {
        names = load_torchscript(s.model, torch::kCPU).metadata.names;
      } catch (const std::exception& e) {
        problems.push_back(
            fmt::format("stream '{}': model '{}' does not load: {}", stream.id, s.model, e.what()));
      }
      it = loaded.emplace(s.model, std::move(names)).first;
    }
    if (!it->second || it->second->empty()) continue;
    const std::map<int, std::string>& names = *it->second;
    for (const std::string& token : class_tokens(s.classes)) {
      const int c = std::stoi(token);  // the monitor's classes are ids (ConfigReader::class_list)
      if (names.count(c)) continue;
      const std::string known = describe_classes(names);
      problems.push_back(fmt::format("stream '{}': class {} is not in model '{}' (it has {})",
                                     stream.id, c, s.model, known));
    }
  }
  return problems;
}

std::vector<std::string> check_referenced_files(const MonitorConfig& config) {
  // Tracker files are read and checked with the configuration itself (their settings then go to
  // the streams' elements as values), so they are not opened again here.
  std::vector<std::string> problems;
  if (!config.outputs.mqtt.url.empty()) {
    try {
      check_mqtt_output_options(config.outputs.mqtt);
    } catch (const std::exception& e) {
      problems.push_back(fmt::format("outputs.mqtt: {}", e.what()));
    }
  }
  return problems;
}

}  // namespace yolo::monitor
