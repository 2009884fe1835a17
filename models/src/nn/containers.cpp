#include "yolo/models/nn/containers.h"

namespace yolo::nn {

void SequentialImpl::push_back(std::shared_ptr<Layer> layer) {
  register_module(std::to_string(layers_.size()), layer);
  layers_.push_back(std::move(layer));
}

torch::Tensor SequentialImpl::forward(const torch::Tensor& x) {
  torch::Tensor y = x;
  for (auto& layer : layers_) y = layer->run({y});
  return y;
}

void LayerListImpl::push_back(std::shared_ptr<Layer> layer) {
  register_module(std::to_string(layers_.size()), layer);
  layers_.push_back(std::move(layer));
}

}  // namespace yolo::nn
