#include "yolo/trainer/train/multi_scale.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace yolo {

int64_t multi_scale_size(int64_t imgsz, double fraction, int64_t stride, uint64_t seed,
                         int64_t ni) {
  const auto lo = static_cast<int64_t>(static_cast<double>(imgsz) * (1.0 - fraction));
  const auto hi = static_cast<int64_t>(static_cast<double>(imgsz) * (1.0 + fraction)) + stride;
  std::seed_seq seq{static_cast<uint64_t>(seed), static_cast<uint64_t>(ni), uint64_t{0x5ca1e}};
  std::mt19937_64 rng(seq);
  const int64_t drawn = std::uniform_int_distribution<int64_t>(lo, std::max(lo, hi - 1))(rng);
  return std::max(drawn / stride * stride, stride);
}

torch::Tensor resize_batch(const torch::Tensor& images, int64_t size, int64_t stride) {
  const int64_t h = images.size(2), w = images.size(3);
  const double scale = static_cast<double>(size) / static_cast<double>(std::max(h, w));
  if (scale == 1.0) return images;
  auto side = [&](int64_t v) {
    return static_cast<int64_t>(std::ceil(static_cast<double>(v) * scale / stride)) * stride;
  };
  namespace F = torch::nn::functional;
  return F::interpolate(images, F::InterpolateFuncOptions()
                                    .size(std::vector<int64_t>{side(h), side(w)})
                                    .mode(torch::kBilinear)
                                    .align_corners(false));
}

}  // namespace yolo
