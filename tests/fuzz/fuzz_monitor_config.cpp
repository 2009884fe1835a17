// yolo-monitor's configuration (monitor.yaml, the state file's and POST /api/v1/streams' stream
// objects): whatever the bytes, parse_config and stream_from_json return or throw ConfigError
// listing the problems; nothing else escapes (the service reports ConfigError's problems and
// keeps its running configuration on a bad reload).
#include <cstddef>
#include <cstdint>
#include <string>

#include "yolo/core/device.h"
#include "yolo/monitor/monitor_config.h"

// The configuration only parses device strings; device.cpp's select_device() also asks LibTorch
// what it has, which this LibTorch-free target answers with "a CPU build".
yolo::BackendInfo yolo::query_backend() {
  return {};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const yolo::monitor::MonitorConfig c = yolo::monitor::parse_config(text, "fuzz.yaml");
    for (const auto& s : c.streams) (void)yolo::monitor::to_json(s).dump();
  } catch (const yolo::monitor::ConfigError&) {
  }
  // The same bytes as the JSON body of POST /api/v1/streams.
  const nlohmann::json body = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!body.is_discarded()) {
    try {
      (void)yolo::monitor::stream_from_json(body, "fuzz body");
    } catch (const yolo::monitor::ConfigError&) {
    }
  }
  return 0;
}
