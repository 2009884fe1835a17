// Turns the `model=` setting into an eager model: a YAML name or path (yolo26n.yaml), or one of
// our checkpoints (best.pt, last.pt, *.torchscript written by yolo-trainer), a TorchScript
// export of Ultralytics, or an Ultralytics .pt (ultralytics_checkpoint.h).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "yolo/models/detection_model.h"
#include "yolo/models/weight_transfer.h"

namespace yolo {

class Config;

std::shared_ptr<DetectionModelImpl> load_model_setting(const std::string& model,
                                                       std::optional<int> nc = {});

// The model a training run starts from, as Ultralytics' trainer makes it (setup_model, then
// DetectionModel.load: weight_transfer.h): the architecture of `model=` (a YAML, or the one a
// weights file carries) for the data's `nc` classes named `names`, filled from the weights of
// pretrained=PATH, else of the `model=` file unless pretrained=False. A resumed run takes the
// checkpoint's own weights and ignores pretrained=. cls_remap= says whether class rows are
// copied by name.
std::shared_ptr<DetectionModelImpl> model_to_train(const Config& cfg, int nc,
                                                   const std::map<int, std::string>& names,
                                                   bool resuming, TransferReport* report = nullptr);

// The `nms` setting applied to an end-to-end model (YOLO26), as Ultralytics 8.4.190 does: empty
// or true infer through the one-to-many head and NMS, false through the NMS-free one-to-one
// head. Logs the choice; a model without a one-to-one head ignores nms=False with a warning.
void choose_inference_head(DetectionModelImpl& model, const Config& cfg);

}  // namespace yolo
