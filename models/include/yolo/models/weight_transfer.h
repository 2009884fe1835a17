// Pretrained weights into a model about to be trained: Ultralytics 8.4's DetectionModel.load
// (nn/tasks.py, `load` and `_remap_cls_by_names`), so that fine-tuning starts from what
// Ultralytics would start from.
//
//   1. Class branch at the source's width. Detect's class branch is max(P3 channels,
//      min(nc, 100)) wide, so another class count builds another width and none of the branch's
//      hidden layers would fit. When the heads take the same input widths, the model is built
//      with the source's width instead, and only the final class convolutions start fresh.
//   2. Class rows by name. When the target's class names overlap the source's (case and spaces
//      ignored) but not in the same order and count, the final class convolutions' rows are
//      copied by name ("Remapped 3/4 cls head rows from pretrained weights by class name").
//   3. Every other tensor whose name and shape agree is copied.
//   4. A first convolution for another number of input channels is filled from the source's
//      filters: summed over RGB for a grey model, the first channels otherwise.
// What Ultralytics does that is not done here: grafting a class branch of another family (a
// YOLOv8 branch into a YOLO11 head when the input widths happen to agree); the branch keeps its
// own family and starts fresh instead.
#pragma once

#include <torch/torch.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "yolo/models/detection_model.h"
#include "yolo/models/model_config.h"

namespace yolo {

// The weights a model is fine-tuned from, whatever file they came in.
struct PretrainedWeights {
  std::string path;
  std::map<std::string, torch::Tensor> state;  // state-dict names -> FP32 tensors
  std::map<int, std::string> names;            // the source's class names
  ModelConfig config;                          // the architecture the file carries
};

// Reads an Ultralytics .pt (its EMA when it has one, as Ultralytics does), one of our training
// checkpoints, or a TorchScript export (split back into convolution + BatchNorm first). Throws
// CheckpointError naming the file.
PretrainedWeights read_pretrained_weights(const std::string& path);

// What Detect's class branch looks like in a state dict: the head's layer prefix
// ("model.23."), the hidden width feeding the final class convolution, the class count, the
// head's input widths, and whether it is YOLOv8's plain branch. Empty when the state has no head.
struct ClassBranchShape {
  std::string head;
  int64_t hidden = 0, nc = 0;
  std::vector<int64_t> inputs;
  bool legacy = false, end2end = false;
};
std::optional<ClassBranchShape> class_branch_shape(
    const std::map<std::string, torch::Tensor>& state);
// ModelConfig::cls_hidden for a model whose weights are `state`: the branch's width when it is
// not what its class count builds (a model fine-tuned by Ultralytics 8.4 on another class count
// keeps its pretrained width), else 0.
int class_branch_width_override(const std::map<std::string, torch::Tensor>& state);

struct TransferReport {
  int transferred = 0;    // Ultralytics' count: copied + remapped tensors + an adapted first conv
  int total = 0;          // tensors in the model's state dict
  int remapped_rows = 0;  // target classes whose rows came from a source class of that name
  int remapped_tensors = 0;
  bool first_conv_adapted = false;
  int64_t kept_hidden = 0;  // the class branch was built at the source's width (0: not needed)
  int64_t rule_hidden = 0;  // the width the class count alone would have built
  std::vector<std::string> fresh;  // model tensors that start from their initial values
};

// Builds the model for `config` (its nc and the target's class `names`) and fills it from
// `source` as above; `remap_by_names` is Ultralytics' cls_remap. Logs the transfer in
// Ultralytics' words. `config.cls_hidden` is decided here.
std::shared_ptr<DetectionModelImpl> build_with_pretrained(ModelConfig config,
                                                          const PretrainedWeights& source,
                                                          const std::map<int, std::string>& names,
                                                          bool remap_by_names,
                                                          TransferReport* report = nullptr);

}  // namespace yolo
