// The settings of `yolo-trainer train`, read from the Config once and typed (as PredictOptions is
// for predict): the trainer's code reads fields, not string keys. Checks that need nothing but
// the settings happen here (ConfigError with the fix); those that need the model or the process
// layout (the imgsz stride, batch against DDP processes) happen where those are known.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "yolo/runtime/inference_settings.h"
#include "yolo/trainer/data/augment.h"
#include "yolo/trainer/train/loss.h"
#include "yolo/trainer/train/schedule.h"

namespace yolo {

class Config;

struct TrainOptions {
  // what to train, on what, where
  std::string data, datasets_dir = "datasets", model, device;
  std::string project, name;  // empty: runs/detect, trainN
  bool exist_ok = false;
  bool single_cls = false;
  std::set<int> classes;          // classes= (empty: all)
  std::string val_split = "val";  // split=train validates on the training images
  double fraction = 1.0;
  std::string cache;  // "", "ram"/"true" or "disk"
  bool rect = false;
  AugmentParams hyp;

  // model and optimisation
  int imgsz = 640, batch = 16, epochs = 100, workers = 8;
  uint64_t seed = 0;
  bool deterministic = true;
  double multi_scale = 0;
  std::vector<std::string> frozen;  // parameter name prefixes that are not trained
  std::string optimizer = "auto";
  double lr0 = 0.01, momentum = 0.937, weight_decay = 0.0005;
  ScheduleOptions schedule;  // epochs, lrf, cos_lr, warm-up, nbs (batch filled in by the trainer)
  LossGains gains;
  bool amp = true;

  // the loop
  bool val = true, plots = true, verbose = true, save = true;
  int patience = 100, close_mosaic = 10, save_period = -1;
  double time_limit_hours = 0;  // time= (0: none)
  double val_iou = kNmsIou;
  int max_det = kMaxDet;
  bool agnostic_nms = false;

  static TrainOptions from_config(const Config& cfg);
};

// The parameter-name prefixes freeze= names (layer indices as "model.N."), plus ".dfl": the DFL
// integral's weights are fixed by design.
std::vector<std::string> frozen_prefixes(const Config& cfg);
bool is_frozen(const std::string& parameter_name, const std::vector<std::string>& prefixes);

}  // namespace yolo
