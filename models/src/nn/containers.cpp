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

void copy_state(const torch::nn::Module& from, torch::nn::Module& to) {
  torch::NoGradGuard no_grad;
  auto params = from.named_parameters(true);
  auto buffers = from.named_buffers(true);
  for (auto& p : to.named_parameters(true)) p.value().copy_(params[p.key()]);
  for (auto& b : to.named_buffers(true)) b.value().copy_(buffers[b.key()]);
}

void LayerListImpl::push_back(std::shared_ptr<Layer> layer) {
  register_module(std::to_string(layers_.size()), layer);
  layers_.push_back(std::move(layer));
}

}  // namespace yolo::nn
