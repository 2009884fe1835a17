// Building blocks (Ultralytics' nn/modules/block.py): Bottleneck, C2f, C3, C3k, C3k2, SPPF,
// and the attention blocks Attention, PSABlock, C2PSA. Constructor arguments follow
// Ultralytics' signatures; all map (B, c1, H, W) -> (B, c2, H, W).
#pragma once

#include <memory>

#include "yolo/models/nn/containers.h"
#include "yolo/models/nn/conv.h"

namespace yolo::nn {

class BottleneckImpl : public Layer {
 public:
  BottleneckImpl(int64_t c1, int64_t c2, bool shortcut = true, int64_t g = 1, int64_t k1 = 3,
                 int64_t k2 = 3, double e = 0.5);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor run(const std::vector<torch::Tensor>& in) override { return forward(in.at(0)); }

  std::shared_ptr<ConvImpl> cv1, cv2;
  bool add;
};

// C2f: split cv1's output in two, chain n bottlenecks on the second half, concatenate all.
// C3k2 is a C2f whose blocks are C3k, attention or plain bottlenecks (see make_c3k2).
class C2fImpl : public Layer {
 public:
  C2fImpl(int64_t c1, int64_t c2, int64_t n = 1, bool shortcut = false, int64_t g = 1,
          double e = 0.5);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor run(const std::vector<torch::Tensor>& in) override { return forward(in.at(0)); }

  int64_t c;  // hidden channels
  std::shared_ptr<ConvImpl> cv1, cv2;
  std::shared_ptr<LayerListImpl> m;

 protected:
  C2fImpl(int64_t c1, int64_t c2, int64_t n, double e);  // blocks added by the subclass
};

class C3k2Impl : public C2fImpl {
 public:
  C3k2Impl(int64_t c1, int64_t c2, int64_t n = 1, bool c3k = false, double e = 0.5,
           bool attn = false, int64_t g = 1, bool shortcut = true);
};

// C3: cv3(cat(m(cv1(x)), cv2(x))); C3k uses k x k bottlenecks.
class C3Impl : public Layer {
 public:
  C3Impl(int64_t c1, int64_t c2, int64_t n = 1, bool shortcut = true, int64_t g = 1, double e = 0.5,
         int64_t k = -1);  // k < 0: C3's (1,3) bottlenecks; else C3k's (k,k)
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor run(const std::vector<torch::Tensor>& in) override { return forward(in.at(0)); }

  std::shared_ptr<ConvImpl> cv1, cv2, cv3;
  std::shared_ptr<SequentialImpl> m;
};

std::shared_ptr<C3Impl> make_c3k(int64_t c1, int64_t c2, int64_t n = 1, bool shortcut = true,
                                 int64_t g = 1, double e = 0.5, int64_t k = 3);

// SPPF: cv1, n chained max-pools, concatenation, cv2, optional residual.
// cv1_act: SiLU before the pools (YOLOv8/11 weights) or linear (YOLO26, Ultralytics >= 8.4).
class SPPFImpl : public Layer {
 public:
  SPPFImpl(int64_t c1, int64_t c2, int64_t k = 5, int64_t n = 3, bool shortcut = false,
           bool cv1_act = false);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor run(const std::vector<torch::Tensor>& in) override { return forward(in.at(0)); }

  std::shared_ptr<ConvImpl> cv1, cv2;
  int64_t k, n;
  bool add;
};

// Multi-head self-attention over H*W positions with a depthwise positional encoding.
class AttentionImpl : public Layer {
 public:
  AttentionImpl(int64_t dim, int64_t num_heads = 8, double attn_ratio = 0.5);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor run(const std::vector<torch::Tensor>& in) override { return forward(in.at(0)); }

  int64_t num_heads, head_dim, key_dim;
  double scale;
  std::shared_ptr<ConvImpl> qkv, proj, pe;
};

class PSABlockImpl : public Layer {
 public:
  PSABlockImpl(int64_t c, double attn_ratio = 0.5, int64_t num_heads = 4, bool shortcut = true);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor run(const std::vector<torch::Tensor>& in) override { return forward(in.at(0)); }

  std::shared_ptr<AttentionImpl> attn;
  std::shared_ptr<SequentialImpl> ffn;
  bool add;
};

class C2PSAImpl : public Layer {
 public:
  C2PSAImpl(int64_t c1, int64_t c2, int64_t n = 1, double e = 0.5);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor run(const std::vector<torch::Tensor>& in) override { return forward(in.at(0)); }

  int64_t c;
  std::shared_ptr<ConvImpl> cv1, cv2;
  std::shared_ptr<SequentialImpl> m;
};

}  // namespace yolo::nn
