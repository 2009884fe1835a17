// What a Trainer holds between its setup steps and its loop (trainer_setup.cpp, trainer.cpp):
// the typed settings, the device and process group, data, model, optimiser, loss, EMA, loaders,
// the run folder and the counters a checkpoint saves.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "yolo/core/device.h"
#include "yolo/models/checkpoint.h"
#include "yolo/models/detection_model.h"
#include "yolo/trainer/data/data_loader.h"
#include "yolo/trainer/data/dataset.h"
#include "yolo/trainer/metrics/results_log.h"
#include "yolo/trainer/train/distributed.h"
#include "yolo/trainer/train/loss.h"
#include "yolo/trainer/train/mixed_precision.h"
#include "yolo/trainer/train/model_ema.h"
#include "yolo/trainer/train/optimizer.h"
#include "yolo/trainer/train/schedule.h"
#include "yolo/trainer/train/train_checkpoint.h"
#include "yolo/trainer/train/train_options.h"
#include "yolo/trainer/train/trainer.h"
#include "yolo/trainer/val/validator.h"

namespace yolo {

using TrainClock = std::chrono::steady_clock;

struct Trainer::State {
  TrainOptions opt;
  SelectedDevice selected;
  std::unique_ptr<ProcessGroup> pg;  // data-parallel runs only
  bool main = true;                  // rank 0 (or the only process): validates, saves, prints
  int world = 1;                     // processes
  c10::Device device{torch::kCPU};
  DatasetConfig data;
  std::map<int, std::string> names;
  int nc = 0;
  std::shared_ptr<DetectionModelImpl> model;
  int stride = 32;  // the model's largest stride
  std::unique_ptr<ModelEMA> ema;
  std::unique_ptr<Optimizer> optimizer;
  std::unique_ptr<GradScaler> scaler;
  int64_t scaler_steps = 0, scaler_skipped = 0;  // FP16 steps of this process, and those skipped
  std::unique_ptr<DetectionLoss> loss;
  std::unique_ptr<EndToEndLoss> e2e_loss;
  std::unique_ptr<DataLoader> train_loader, val_loader;
  std::vector<ImageRecord> train_records;  // for the labels plot
  std::filesystem::path save_dir, last, best;
  TrainState ts;     // what checkpoints save
  bool amp = false;  // autocast in amp_dtype: FP16 on GPUs, BF16 on CPUs with native BF16
  c10::ScalarType amp_dtype = c10::ScalarType::Half;
  bool channels_last = false;  // CPU: weights and batches in NHWC (train/channels_last.h)
  bool resuming = false;       // from a checkpoint's own weights (pretrained= is not read)
  int start_epoch = 0;
  int64_t start_batch = 0;
  ResultsLog results;

  // Set when train() starts.
  TrainClock::time_point t_start;
  std::unique_ptr<TorchScriptExporter> exporter;
  ValidatorOptions val_options;
  int64_t batches_per_epoch = 0, warmup = 0;
  int run_accumulate = 1;
  uint64_t scale_seed = 0;  // multi-scale sizes (every rank draws its own, as Ultralytics')
  int loading_epoch = -1;   // the epoch whose batches the loader is making
  double spent_train = 0, spent_validate = 0, spent_save = 0;  // seconds (rank 0)
  double spent_data = 0;  // seconds of spent_train getting batches from the loader
};

// Training mode for the model, except the BatchNorm layers of frozen modules, which Ultralytics
// keeps in eval mode while training.
void set_training_mode(DetectionModelImpl& model, const std::vector<std::string>& frozen);

}  // namespace yolo
