// The detection model: its layers come from the builder (model_builder.h, Ultralytics'
// parse_model); here they are registered, strides measured, and the forward pass run.
#include "yolo/models/detection_model.h"

#include <fmt/format.h>

#include <algorithm>

#include "model_builder.h"
#include "yolo/models/nn/containers.h"
#include "yolo/models/nn/conv.h"

namespace yolo {

DetectionModelImpl::DetectionModelImpl(const ModelConfig& config) : config_(config) {
  model_ = register_module("model", std::make_shared<nn::LayerListImpl>());
  BuiltLayers built = parse_model(config);
  for (const auto& layer : built.layers) model_->push_back(layer);
  detect_ = std::dynamic_pointer_cast<nn::DetectImpl>(built.layers.back());
  from_ = std::move(built.from);
  infos_ = std::move(built.infos);

  const int n_layers = static_cast<int>(model_->size());
  save_.assign(n_layers, false);
  for (int i = 0; i < n_layers; ++i) {
    for (int f : from_[i]) {
      if (f != -1) save_[f] = true;
    }
  }

  // Strides from a forward pass at 256x256 (eval mode: the BN statistics stay untouched).
  {
    torch::NoGradGuard no_grad;
    const bool was_training = is_training();
    eval();
    std::vector<torch::Tensor> feats;
    try {
      feats = features(torch::zeros({1, config.channels, 256, 256}));
    } catch (const c10::Error& e) {
      // Typically a Concat of maps with different sizes, or channels that do not fit.
      const std::string what = e.what_without_backtrace();
      throw ModelError(
          fmt::format("{}: the layers do not fit together (a 256x256 test input "
                      "fails): {}",
                      config.source, what.substr(0, what.find('\n'))));
    }
    for (const auto& f : feats) detect_->stride.push_back(256.0 / static_cast<double>(f.size(2)));
    train(was_training);
  }
  detect_->bias_init();
  for (int i = 0; i < detect_->nc; ++i) names[i] = std::to_string(i);
}

std::vector<torch::Tensor> DetectionModelImpl::features(const torch::Tensor& input) {
  const auto n = static_cast<int>(model_->size());
  std::vector<torch::Tensor> saved(static_cast<size_t>(n));
  torch::Tensor x = input;
  for (int i = 0; i < n - 1; ++i) {
    std::vector<torch::Tensor> inputs;
    for (int f : from_[i]) inputs.push_back(f == -1 ? x : saved[f]);
    x = (*model_)[i]->run(inputs);
    if (save_[i]) saved[i] = x;
  }
  std::vector<torch::Tensor> head_inputs;
  for (int f : from_[n - 1]) head_inputs.push_back(f == -1 ? x : saved[f]);
  return head_inputs;
}

torch::Tensor DetectionModelImpl::forward(const torch::Tensor& x) {
  return detect_->run(features(x));
}

nn::DetectTrainOutput DetectionModelImpl::forward_train(const torch::Tensor& x) {
  return detect_->forward_train(features(x));
}

int64_t DetectionModelImpl::max_stride() const {
  double m = 32;
  if (!detect_->stride.empty())
    m = *std::max_element(detect_->stride.begin(), detect_->stride.end());
  return static_cast<int64_t>(m);
}

void DetectionModelImpl::fuse() {
  if (fused_) return;
  for (auto& m : modules(/*include_self=*/false)) {
    if (auto* conv = dynamic_cast<nn::ConvImpl*>(m.get())) conv->fuse();
  }
  detect_->drop_unused_branch();
  fused_ = true;
}

std::shared_ptr<DetectionModelImpl> build_model(const std::string& name_or_path,
                                                std::optional<int> nc) {
  return std::make_shared<DetectionModelImpl>(load_model_config(name_or_path, nc));
}

}  // namespace yolo
