// The settings several modes read, each resolved in one place: imgsz, conf, the shared inference
// settings, and the inference precision (half, bf16) for a device. train, val, predict, track,
// export, info and synth call these instead of reading the keys themselves, so a key means the
// same in every mode. Their defaults are config/default.yaml's (compiled in) and, where it leaves
// a key empty, the named constants of yolo/runtime/inference_settings.h that the element and
// yolo-monitor use too (test_config holds the two to each other).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "yolo/runtime/inference_settings.h"

namespace yolo {

class Config;

// imgsz= as [h, w]: one int is a square, a list is [h, w] (one element: square). `given` tells
// whether it was set (a .pt is then traced at it; a TorchScript file warns that it runs at its
// own size). Throws ConfigError for any other shape.
struct ImageSize {
  int64_t h = 0, w = 0;
  bool given = false;
};
ImageSize imgsz_setting(const Config& cfg);

// Training and validation letterbox to squares: one side. [h, w] with h != w trains at the larger
// side with a warning, as Ultralytics' check_imgsz(max_dim=1) does.
int64_t square_imgsz_setting(const Config& cfg, const std::string& mode);

// classes= as a set of ids (empty when it is left empty: every class).
std::set<int> classes_setting(const Config& cfg);

// rect= for val and predict: as given, else true (Ultralytics' val and predict default to
// rectangles; training's default is false).
bool rect_inference_setting(const Config& cfg);

// conf=, or `when_empty` (kPredictConf for predict, kValConf for val) when it is left empty.
double conf_setting(const Config& cfg, double when_empty);

// The shared inference settings from their command-line keys (kInferenceNames): device (as
// given; "" when empty), conf (conf_setting), iou, max_det, classes (ids as text), agnostic_nms,
// half and bf16 as given (precision_setting resolves them for a device), rect
// (rect_inference_setting). predict, track and val build their runs from it.
InferenceSettings inference_settings(const Config& cfg, double conf_when_empty);

// half= and bf16= for the device a mode runs on ("cpu", "cuda:0"): FP16 only on a GPU, BF16
// autocast only on a CPU (empty: where the CPU has it natively). A setting that cannot apply
// there is dropped with a warning naming the device.
struct InferencePrecision {
  bool half = false;
  std::optional<bool> bf16;
};
InferencePrecision precision_setting(const Config& cfg, const std::string& torch_device);

}  // namespace yolo
