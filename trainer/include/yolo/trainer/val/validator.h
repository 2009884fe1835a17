// Validation: runs a model over a validation loader, postprocesses with the runtime's NMS (the
// same code the deployed runtime runs), matches detections to labels in the letterboxed input
// space (as Ultralytics 8.4 does) and computes the metrics, the confusion matrix, the speed line,
// and optionally plots, COCO JSON and the validation loss.
#pragma once

#include <torch/types.h>

#include <array>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "yolo/runtime/inference_settings.h"
#include "yolo/runtime/postprocess.h"
#include "yolo/trainer/data/data_loader.h"
#include "yolo/trainer/metrics/metrics.h"

namespace yolo {

struct ValidatorOptions {
  double conf = kValConf, iou = kNmsIou;
  int max_det = kMaxDet;
  bool agnostic = false;  // agnostic_nms or single_cls
  bool end2end = false;   // model output is (B, K, 6)
  int nc = 80;
  std::map<int, std::string> names;
  bool plots = false;      // curves, confusion matrices, val_batch0 images
  bool save_json = false;  // predictions.json (COCO format)
  std::filesystem::path save_dir;
  bool progress = true;  // progress bar on stderr
  std::string split = "val";
};

struct ValidationResult {
  metrics::DetectionMetrics metrics;
  std::optional<metrics::ConfusionMatrix> confusion;
  std::optional<std::array<double, 3>> loss;  // box, cls, dfl per image (training)
  double preprocess_ms = 0, inference_ms = 0, postprocess_ms = 0;  // per image
  int prepared_shapes = 0;  // input sizes prepared on first use (one-time work) ...
  double prepare_ms = 0;    // ... and their time, in total, not in inference_ms
  std::vector<std::filesystem::path> files;  // plots and JSON written
  double fitness() const { return metrics.fitness(); }
  // "Speed: ...", and with prepared sizes a second line saying what their preparation took.
  std::string speed_line() const;
};

// What a model gives the validator for one batch: the inference output and, when it can, the
// loss items (3,) for the batch.
struct ModelBatchOutput {
  torch::Tensor predictions;
  std::optional<torch::Tensor> loss_items;
  // Time of this forward spent preparing an input size the model ran for the first time
  // (one-time work: reported apart, not as inference).
  double prepare_ms = 0;
  bool prepared_new_shape = false;
};
using ValidationForward =
    std::function<ModelBatchOutput(const torch::Tensor& images, const torch::Tensor& targets)>;

class Validator {
 public:
  explicit Validator(ValidatorOptions options);

  // One pass over the loader's current data (start_epoch(0) is called here).
  ValidationResult run(DataLoader& loader, const ValidationForward& forward,
                       const c10::Device& device);

  const ValidatorOptions& options() const { return opts_; }

 private:
  ValidatorOptions opts_;
};

// The metrics table without its header line, printed under the validation progress bar, which
// shows the header (as Ultralytics' console output).
std::string metrics_table_rows(const metrics::DetectionMetrics& m,
                               const std::map<int, std::string>& names, bool per_class);

// The stats of one image: detections (n, 6) and targets of that image (rows of class, cx, cy, w,
// h normalised to the batch size (w, h)), both into the metrics' box types in input pixels.
std::vector<metrics::Prediction> to_predictions(const torch::Tensor& dets);
std::vector<metrics::Label> to_labels(const torch::Tensor& targets, int width, int height);

}  // namespace yolo
