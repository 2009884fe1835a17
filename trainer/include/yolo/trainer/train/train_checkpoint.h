// Training checkpoints (weights/last.pt, weights/best.pt): the checkpoint contract of
// shared/DESIGN.md -- a traced, fused EMA model with config.txt, yolo/model.json and
// yolo/weights.pkl (the unfused EMA weights) -- plus what resume needs, as further extra files:
//   yolo/train_state.json  epoch, best fitness, EMA updates, optimiser, loss scaler, date
//   yolo/train_model.pkl   the raw (non-EMA) weights being optimised
//   yolo/optimizer.pkl     optimiser state by parameter name
//   yolo/args.yaml         the run's settings
// Final weights (after training) drop train_model.pkl and optimizer.pkl.
#pragma once

#include <torch/types.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "yolo/models/checkpoint.h"

namespace yolo {

inline constexpr const char* kTrainStateFile = "yolo/train_state.json";
inline constexpr const char* kTrainModelFile = "yolo/train_model.pkl";
inline constexpr const char* kOptimizerFile = "yolo/optimizer.pkl";
inline constexpr const char* kArgsFile = "yolo/args.yaml";

struct TrainState {
  int epoch = -1;              // last completed epoch (0-based); -1 before the first
  int64_t batch_in_epoch = 0;  // batches of epoch + 1 already trained (interrupted mid-epoch)
  // Interrupted mid-epoch: that epoch's running loss means (box, cls, dfl/l1) over the
  // epoch_loss_batches batches it counted, so that the resumed epoch's results row is the one an
  // uninterrupted run writes. Empty otherwise.
  std::vector<double> epoch_losses;
  int64_t epoch_loss_batches = 0;
  std::optional<double> best_fitness;
  int64_t ema_updates = 0;
  int64_t iterations = 0;  // global batches trained (ni)
  int64_t last_opt_step = -1;
  std::string optimizer;  // "SGD", "AdamW", ...
  double scaler_scale = 65536.0;
  int scaler_tracker = 0;
  bool amp = false;
  int patience_counter = 0;  // epochs since the best fitness
  int best_epoch = -1;
  bool finished = false;  // training ended (final weights)
  std::string date;
};

struct TrainCheckpoint {
  TrainState state;
  std::string args_yaml;
  std::string model_weights;  // pickled raw weights; empty in final weights
  std::map<std::string, torch::Tensor> optimizer;
};

// The exporter of a run's checkpoints: the model traced at imgsz on the CPU (so the file loads
// on any device), with the unfused weights; one per run, so that the trace is made once.
TorchScriptExporter make_checkpoint_exporter(ExportOptions options);

// Writes `path` atomically: the EMA model with the metadata, plus the training files. Empty
// model_weights / optimizer leave those files out (final weights).
void save_training_checkpoint(const std::filesystem::path& path, const DetectionModelImpl& ema,
                              TorchScriptExporter& exporter, const TrainCheckpoint& ckpt);

// Reads the training files of one of our checkpoints without loading the model. Throws
// CheckpointError naming the file when it is not a training checkpoint or they are corrupt.
TrainCheckpoint load_training_checkpoint(const std::filesystem::path& path);

}  // namespace yolo
