#include "yolo/models/nn/block.h"

#include <torch/nn/functional/pooling.h>

#include <cmath>

namespace yolo::nn {

BottleneckImpl::BottleneckImpl(int64_t c1, int64_t c2, bool shortcut, int64_t g, int64_t k1,
                               int64_t k2, double e)
    : add(shortcut && c1 == c2) {
  const auto c_ = static_cast<int64_t>(c2 * e);
  cv1 = register_module("cv1", std::make_shared<ConvImpl>(c1, c_, k1, 1));
  cv2 = register_module("cv2", std::make_shared<ConvImpl>(c_, c2, k2, 1, -1, g));
}

torch::Tensor BottleneckImpl::forward(const torch::Tensor& x) {
  torch::Tensor y = cv2->forward(cv1->forward(x));
  return add ? x + y : y;
}

C2fImpl::C2fImpl(int64_t c1, int64_t c2, int64_t n, double e) : c(static_cast<int64_t>(c2 * e)) {
  cv1 = register_module("cv1", std::make_shared<ConvImpl>(c1, 2 * c, 1, 1));
  cv2 = register_module("cv2", std::make_shared<ConvImpl>((2 + n) * c, c2, 1));
  m = register_module("m", std::make_shared<LayerListImpl>());
}

C2fImpl::C2fImpl(int64_t c1, int64_t c2, int64_t n, bool shortcut, int64_t g, double e)
    : C2fImpl(c1, c2, n, e) {
  for (int64_t i = 0; i < n; ++i) {
    m->push_back(std::make_shared<BottleneckImpl>(c, c, shortcut, g, 3, 3, 1.0));
  }
}

torch::Tensor C2fImpl::forward(const torch::Tensor& x) {
  std::vector<torch::Tensor> y = cv1->forward(x).split(c, 1);  // two (B, c, H, W) halves
  for (const auto& block : *m) y.push_back(block->run({y.back()}));
  return cv2->forward(torch::cat(y, 1));
}

C3k2Impl::C3k2Impl(int64_t c1, int64_t c2, int64_t n, bool c3k, double e, bool attn, int64_t g,
                   bool shortcut)
    : C2fImpl(c1, c2, n, e) {
  for (int64_t i = 0; i < n; ++i) {
    if (attn) {
      auto seq = std::make_shared<SequentialImpl>();
      seq->push_back(std::make_shared<BottleneckImpl>(c, c, shortcut, g));
      seq->push_back(std::make_shared<PSABlockImpl>(c, 0.5, std::max<int64_t>(c / 64, 1)));
      m->push_back(seq);
    } else if (c3k) {
      m->push_back(make_c3k(c, c, 2, shortcut, g));
    } else {
      m->push_back(std::make_shared<BottleneckImpl>(c, c, shortcut, g));
    }
  }
}

C3Impl::C3Impl(int64_t c1, int64_t c2, int64_t n, bool shortcut, int64_t g, double e, int64_t k) {
  const auto c_ = static_cast<int64_t>(c2 * e);
  cv1 = register_module("cv1", std::make_shared<ConvImpl>(c1, c_, 1, 1));
  cv2 = register_module("cv2", std::make_shared<ConvImpl>(c1, c_, 1, 1));
  cv3 = register_module("cv3", std::make_shared<ConvImpl>(2 * c_, c2, 1));
  m = register_module("m", std::make_shared<SequentialImpl>());
  for (int64_t i = 0; i < n; ++i) {
    m->push_back(
        std::make_shared<BottleneckImpl>(c_, c_, shortcut, g, k < 0 ? 1 : k, k < 0 ? 3 : k, 1.0));
  }
}

torch::Tensor C3Impl::forward(const torch::Tensor& x) {
  return cv3->forward(torch::cat({m->forward(cv1->forward(x)), cv2->forward(x)}, 1));
}

std::shared_ptr<C3Impl> make_c3k(int64_t c1, int64_t c2, int64_t n, bool shortcut, int64_t g,
                                 double e, int64_t k) {
  return std::make_shared<C3Impl>(c1, c2, n, shortcut, g, e, k);
}

SPPFImpl::SPPFImpl(int64_t c1, int64_t c2, int64_t k_, int64_t n_, bool shortcut, bool cv1_act)
    : k(k_), n(n_), add(shortcut && c1 == c2) {
  const int64_t c_ = c1 / 2;
  cv1 = register_module("cv1", std::make_shared<ConvImpl>(c1, c_, 1, 1, -1, 1, 1, cv1_act));
  cv2 = register_module("cv2", std::make_shared<ConvImpl>(c_ * (n + 1), c2, 1, 1));
}

torch::Tensor SPPFImpl::forward(const torch::Tensor& x) {
  std::vector<torch::Tensor> y{cv1->forward(x)};
  for (int64_t i = 0; i < n; ++i) {
    y.push_back(torch::max_pool2d(y.back(), {k, k}, {1, 1}, {k / 2, k / 2}));
  }
  torch::Tensor out = cv2->forward(torch::cat(y, 1));
  return add ? x + out : out;
}

AttentionImpl::AttentionImpl(int64_t dim, int64_t heads, double attn_ratio)
    : num_heads(heads),
      head_dim(dim / heads),
      key_dim(static_cast<int64_t>(dim / heads * attn_ratio)),
      scale(std::pow(static_cast<double>(key_dim), -0.5)) {
  const int64_t h = dim + key_dim * num_heads * 2;
  qkv = register_module("qkv", std::make_shared<ConvImpl>(dim, h, 1, 1, -1, 1, 1, false));
  proj = register_module("proj", std::make_shared<ConvImpl>(dim, dim, 1, 1, -1, 1, 1, false));
  pe = register_module("pe", std::make_shared<ConvImpl>(dim, dim, 3, 1, -1, dim, 1, false));
}

torch::Tensor AttentionImpl::forward(const torch::Tensor& x) {
  // Batch stays symbolic (-1) so that a traced model accepts any batch size.
  const int64_t C = x.size(1), H = x.size(2), W = x.size(3), N = H * W;
  // (B, heads, 2*key_dim + head_dim, N): each head holds [q | k | v].
  auto parts = qkv->forward(x)
                   .view({-1, num_heads, key_dim * 2 + head_dim, N})
                   .split_with_sizes({key_dim, key_dim, head_dim}, 2);
  const torch::Tensor &q = parts[0], &k = parts[1], &v = parts[2];
  torch::Tensor attn = (q.transpose(-2, -1).matmul(k) * scale).softmax(-1);  // (B, heads, N, N)
  torch::Tensor out =
      v.matmul(attn.transpose(-2, -1)).view({-1, C, H, W}) + pe->forward(v.reshape({-1, C, H, W}));
  return proj->forward(out);
}

PSABlockImpl::PSABlockImpl(int64_t c, double attn_ratio, int64_t num_heads, bool shortcut)
    : add(shortcut) {
  attn = register_module("attn", std::make_shared<AttentionImpl>(c, num_heads, attn_ratio));
  ffn = register_module("ffn", std::make_shared<SequentialImpl>());
  ffn->push_back(std::make_shared<ConvImpl>(c, c * 2, 1));
  ffn->push_back(std::make_shared<ConvImpl>(c * 2, c, 1, 1, -1, 1, 1, false));
}

torch::Tensor PSABlockImpl::forward(const torch::Tensor& x) {
  torch::Tensor y = add ? x + attn->forward(x) : attn->forward(x);
  return add ? y + ffn->forward(y) : ffn->forward(y);
}

C2PSAImpl::C2PSAImpl(int64_t c1, int64_t c2, int64_t n, double e)
    : c(static_cast<int64_t>(c1 * e)) {
  TORCH_CHECK(c1 == c2, "C2PSA needs equal input and output channels, got ", c1, " and ", c2);
  cv1 = register_module("cv1", std::make_shared<ConvImpl>(c1, 2 * c, 1, 1));
  cv2 = register_module("cv2", std::make_shared<ConvImpl>(2 * c, c1, 1));
  m = register_module("m", std::make_shared<SequentialImpl>());
  for (int64_t i = 0; i < n; ++i) {
    m->push_back(std::make_shared<PSABlockImpl>(c, 0.5, std::max<int64_t>(c / 64, 1)));
  }
}

torch::Tensor C2PSAImpl::forward(const torch::Tensor& x) {
  auto ab = cv1->forward(x).split(c, 1);
  return cv2->forward(torch::cat({ab[0], m->forward(ab[1])}, 1));
}

}  // namespace yolo::nn
