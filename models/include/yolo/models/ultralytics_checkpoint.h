// Ultralytics' own checkpoints (yolo26n.pt, a run's best.pt / last.pt): a torch.save zip whose
// data.pkl holds a dict with the pickled DetectionModel under "ema" or "model", plus
// "train_args", "date", "version". It is read as data (pickle_data.h): the model's own YAML, its
// class names and stride, the training image size and the state dict; nothing in it is run.
//
// The network is then built from that YAML by our builder and filled by name (Ultralytics'
// state-dict names are ours). To run it, the runtime fuses and traces it once at load, in
// memory, at the size it was trained at: nothing is written beside the user's file (a model
// folder may be read-only, and a cache could go stale when the .pt is replaced), and the trace
// takes about a second, once per load.
#pragma once

#include <torch/script.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "yolo/models/checkpoint.h"
#include "yolo/models/detection_model.h"

namespace yolo {

struct UltralyticsCheckpoint {
  std::string path;
  std::string model_key;  // "ema" (a resumable last.pt) or "model" (best.pt, releases)
  ModelConfig config;     // from the model's own YAML
  std::map<int, std::string> names;
  std::vector<double> stride;
  std::pair<int64_t, int64_t> imgsz{640, 640};  // train_args' imgsz: Ultralytics' predict default
  std::map<std::string, torch::Tensor> state;   // state-dict names -> float32 tensors
  std::map<std::string, double> batchnorm_eps;  // BatchNorm module name -> eps
  std::map<std::string, bool> conv_silu;        // Conv module name -> SiLU (true) or identity
  bool half = false;                            // the weights were stored in FP16
  std::string version, date;                    // Ultralytics' version and the save date
};

// Reads an Ultralytics detection checkpoint. Throws CheckpointError naming the file for
// anything else: a torch.save without an Ultralytics model, a segment/pose/OBB/classify model,
// a pickle naming a global outside the allowed records (nothing is run), missing or damaged
// tensor records, an architecture our builder does not make.
UltralyticsCheckpoint read_ultralytics_checkpoint(const std::string& path);
UltralyticsCheckpoint read_ultralytics_checkpoint(const ModelFile& file);

// The eager, unfused network with the checkpoint's weights. With `nc` set and different from
// the file's, the class head keeps its initial weights (fine-tuning on another dataset); they
// are counted in `report`.
std::shared_ptr<DetectionModelImpl> build_ultralytics_model(const UltralyticsCheckpoint& ckpt,
                                                            std::optional<int> nc = {},
                                                            ImportReport* report = nullptr);

// load_torchscript for an Ultralytics .pt: built, fused and traced on `device` at `imgsz`
// ([h] or [h, w]; empty: the checkpoint's training size, as Ultralytics' predict and export
// default to), with the metadata an export would carry.
LoadedModel load_ultralytics_as_torchscript(const ModelFile& file, const c10::Device& device,
                                            const std::vector<int64_t>& imgsz = {});

}  // namespace yolo
