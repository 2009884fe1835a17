#include "element_settings.h"

#include <fmt/format.h>

namespace yolo::gst {

std::vector<std::string> ElementSettings::problems() const {
  std::vector<std::string> out;
  auto check = [&](const char* name, double value, double lo, double hi) {
    if (!(value >= lo && value <= hi))  // NaN too
      out.push_back(fmt::format("{}={} is out of range: use {} to {}", name, value, lo, hi));
  };
  check("conf-threshold", conf_threshold, 0, 1);
  check("iou-threshold", iou_threshold, 0, 1);
  check("max-detections", max_detections, 1, kMaxDetections);
  check("batch-size", batch_size, 1, kMaxBatch);
  check("batch-timeout", batch_timeout_us, 0, kMaxBatchTimeoutUs);
  check("inference-interval", inference_interval, 1, 1'000'000);
  check("http-port", http_port, -1, 65535);
  if (bf16 != "auto" && bf16 != "true" && bf16 != "false")
    out.push_back(fmt::format("bf16={} is not one of auto, true, false", bf16));
  return out;
}

std::optional<bool> ElementSettings::bf16_choice() const {
  if (bf16 == "auto") return std::nullopt;
  return bf16 == "true";
}

}  // namespace yolo::gst
