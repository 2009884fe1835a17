// Turns the `model=` setting into an eager model: a YAML name or path (yolo26n.yaml), or one of
// our checkpoints (best.pt, last.pt, *.torchscript written by yolo-trainer), a TorchScript
// export of Ultralytics, or an Ultralytics .pt (ultralytics_checkpoint.h).
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

// Ultralytics' pretrained=PATH: the tensors of PATH whose names and shapes match `model`'s are
// copied into it (PATH: an Ultralytics .pt, one of our checkpoints or a TorchScript export), and
// "Transferred N/M items from pretrained weights" is logged. Returns N.
int transfer_pretrained(DetectionModelImpl& model, const std::string& path);

// The `nms` setting applied to an end-to-end model (YOLO26), as Ultralytics 8.4.190 does: empty
// or true infer through the one-to-many head and NMS, false through the NMS-free one-to-one
// head. Logs the choice; a model without a one-to-one head ignores nms=False with a warning.
void choose_inference_head(DetectionModelImpl& model, const Config& cfg);

}  // namespace yolo
