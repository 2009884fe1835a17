// Containers with PyTorch's child naming ("0", "1", ...), so state-dict keys match Ultralytics'
// nn.Sequential / nn.ModuleList (`model.2.m.0.cv1.conv.weight`).
#pragma once

#include <memory>
#include <vector>

#include "yolo/models/nn/layer.h"

namespace yolo::nn {

// Runs its children one after the other (single input).
class SequentialImpl : public Layer {
 public:
  void push_back(std::shared_ptr<Layer> layer);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor run(const std::vector<torch::Tensor>& in) override { return forward(in.at(0)); }
  size_t size() const { return layers_.size(); }
  const std::shared_ptr<Layer>& operator[](size_t i) const { return layers_.at(i); }

 private:
  std::vector<std::shared_ptr<Layer>> layers_;
};

// Holds children without running them (nn.ModuleList).
class LayerListImpl : public torch::nn::Module {
 public:
  void push_back(std::shared_ptr<Layer> layer);
  size_t size() const { return layers_.size(); }
  const std::shared_ptr<Layer>& operator[](size_t i) const { return layers_.at(i); }
  auto begin() const { return layers_.begin(); }
  auto end() const { return layers_.end(); }

 private:
  std::vector<std::shared_ptr<Layer>> layers_;
};

}  // namespace yolo::nn
