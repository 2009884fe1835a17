// The YAML-to-network builder (Ultralytics' parse_model in ultralytics/nn/tasks.py): each row
// [from, repeats, module, args] of a ModelConfig becomes one layer, `model.<i>`. The kinds of
// module it knows, and how to add one, are in model_builder.cpp. Private to models/src.
#pragma once

#include <memory>
#include <vector>

#include "yolo/models/detection_model.h"
#include "yolo/models/model_config.h"
#include "yolo/models/nn/layer.h"

namespace yolo {

// The layers of a network, in YAML order; DetectionModelImpl registers them as `model.<i>`.
struct BuiltLayers {
  std::vector<std::shared_ptr<nn::Layer>> layers;  // the last one is the Detect head
  std::vector<std::vector<int>> from;              // per layer: absolute indices, -1 = previous
  std::vector<LayerInfo> infos;                    // per layer: its row of the model summary
};

// Builds every layer of `config` (parameters initialised by the layers' constructors, in order).
// Throws ModelError naming the file, the layer index and the module for a row that cannot be
// built: an unknown module, a `from` that names no earlier layer, a misplaced Detect, bad args.
BuiltLayers parse_model(const ModelConfig& config);

}  // namespace yolo
