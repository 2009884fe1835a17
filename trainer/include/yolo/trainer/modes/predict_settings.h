// `yolo-trainer predict` and `track`: the settings keys (config/default.yaml) turned into the
// predict library's options (yolo/predict/predictor.h).
#pragma once

#include <string>

#include "yolo/predict/predictor.h"

namespace yolo {

class Config;

// conf null -> 0.25 (kPredictConf), batch 1 unless given. Throws ConfigError for missing or
// invalid keys (no model, no source, vid_stride < 1, ...).
PredictOptions predict_options_from_config(const Config& cfg, const std::string& torch_device);

// The same for `track`: tracker= read and checked (UsageError when it is bad), and conf null
// -> 0.1 as Ultralytics' model.track, because the tracker's second association needs the
// low-score boxes.
PredictOptions track_options_from_config(const Config& cfg, const std::string& torch_device);

}  // namespace yolo
