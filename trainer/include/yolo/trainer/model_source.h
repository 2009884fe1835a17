// Turns the `model=` setting into an eager model: a YAML name or path (yolo26n.yaml), or one of
// our checkpoints (best.pt, last.pt, *.torchscript written by yolo-trainer).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "yolo/models/detection_model.h"

namespace yolo {

class Config;

std::shared_ptr<DetectionModelImpl> load_model_setting(const std::string& model,
                                                       std::optional<int> nc = {});

// imgsz as [h, w] from an int or a list (one or two ints); throws ConfigError otherwise.
std::pair<int64_t, int64_t> imgsz_setting(const Config& cfg);

}  // namespace yolo
