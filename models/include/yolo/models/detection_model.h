// The detection network built from a ModelConfig (Ultralytics' DetectionModel).
// Parameter and buffer names equal Ultralytics' state-dict keys: `model.<i>.<...>`.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "yolo/models/model_config.h"
#include "yolo/models/nn/head.h"

namespace yolo {

// One row of the model summary.
struct LayerInfo {
  int index = 0;
  std::vector<int> from;
  int repeats = 1;     // after depth scaling
  std::string module;  // "Conv", "C3k2", ...
  std::string args;    // resolved constructor arguments, e.g. "[3, 16, 3, 2]"
  int64_t out_channels = 0;
};

class DetectionModelImpl : public torch::nn::Module {
 public:
  // Builds the network; throws ModelError naming the layer index for bad layers.
  explicit DetectionModelImpl(const ModelConfig& config);

  // Inference output (see DetectImpl::run): (B, 4+nc, A) or, end-to-end, (B, k, 6).
  // x: (B, channels, H, W) float in [0, 1], H and W multiples of the largest stride.
  torch::Tensor forward(const torch::Tensor& x);
  // Training output: raw head outputs for the loss.
  nn::DetectTrainOutput forward_train(const torch::Tensor& x);

  // Folds every BatchNorm into its convolution; end-to-end models also drop the one-to-many
  // branch. Inference only afterwards.
  void fuse();
  bool is_fused() const { return fused_; }

  nn::DetectImpl& detect() { return *detect_; }
  const nn::DetectImpl& detect() const { return *detect_; }
  const ModelConfig& config() const { return config_; }
  const std::vector<LayerInfo>& layer_infos() const { return infos_; }
  int64_t max_stride() const;
  int64_t num_classes() const { return detect_->nc; }
  int64_t input_channels() const { return config_.channels; }

  // Class names; "0", "1", ... until a dataset sets them.
  std::map<int, std::string> names;

 private:
  // Runs layers up to (not including) the head; returns the head's inputs.
  std::vector<torch::Tensor> features(const torch::Tensor& x);

  ModelConfig config_;
  std::shared_ptr<nn::LayerListImpl> model_;
  std::shared_ptr<nn::DetectImpl> detect_;
  std::vector<std::vector<int>> from_;  // absolute indices, -1 = previous
  std::vector<bool> save_;              // outputs kept for later layers
  std::vector<LayerInfo> infos_;
  bool fused_ = false;
};

// Convenience: load_model_config + construct.
std::shared_ptr<DetectionModelImpl> build_model(const std::string& name_or_path,
                                                std::optional<int> nc = {});

}  // namespace yolo
