#include "colour_conversion.h"

#include <torch/torch.h>

#include <cmath>
#include <cstdint>

#include "linear_resize.h"

namespace yolo {
namespace {

// R = (cy * (Y - y_offset) + cvr * (V - 128) + half) >> shift, and likewise G and B, all in
// int32 (the largest sum, about 2.3 * 2^20 * 255, stays far below 2^31).
constexpr int kShift = 20;

struct YuvCoefficients {
  int y_offset;
  int32_t cy, cvr, cvg, cug, cub;
};

int32_t fixed(double c) {
  return static_cast<int32_t>(std::lround(c * (1 << kShift)));
}

YuvCoefficients coefficients(YuvMatrix matrix, YuvRange range) {
  if (matrix == YuvMatrix::kBT601 && range == YuvRange::kLimited) {
    // OpenCV's ITUR_BT_601_* constants (1.164, 1.596, -0.813, -0.391, 2.018 in 20-bit fixed
    // point), kept verbatim so that frames match cv::cvtColor bit for bit.
    return {16, 1220542, 1673527, -852492, -409993, 2116026};
  }
  const double kr = matrix == YuvMatrix::kBT601 ? 0.299 : 0.2126;
  const double kb = matrix == YuvMatrix::kBT601 ? 0.114 : 0.0722;
  const double kg = 1.0 - kr - kb;
  const bool limited = range == YuvRange::kLimited;
  // Limited range: Y spans 16..235 (219 steps) and chroma 16..240 (224 steps).
  const double ys = limited ? 255.0 / 219.0 : 1.0, cs = limited ? 255.0 / 224.0 : 1.0;
  return {limited ? 16 : 0,
          fixed(ys),
          fixed(2 * (1 - kr) * cs),
          fixed(-2 * (1 - kr) * kr / kg * cs),
          fixed(-2 * (1 - kb) * kb / kg * cs),
          fixed(2 * (1 - kb) * cs)};
}

// y, u, v: (R, K) uint8 per pixel. Returns (R, 3, K) int32 RGB in 0..255.
torch::Tensor yuv_to_rgb(const torch::Tensor& y, const torch::Tensor& u, const torch::Tensor& v,
                         const YuvCoefficients& c) {
  torch::Tensor uu = u.to(torch::kInt).sub_(128), vv = v.to(torch::kInt).sub_(128);
  // OpenCV clamps Y - 16 at 0 before scaling (footroom reads as black); the rounding half of
  // the final shift is folded in here once for all three channels.
  torch::Tensor yy =
      y.to(torch::kInt).sub_(c.y_offset).clamp_min_(0).mul_(c.cy).add_(1 << (kShift - 1));
  torch::Tensor rgb = torch::empty({y.size(0), 3, y.size(1)}, yy.options());
  rgb.select(1, 0).copy_(vv).mul_(c.cvr).add_(yy);
  rgb.select(1, 1).copy_(vv).mul_(c.cvg).add_(uu, c.cug).add_(yy);
  rgb.select(1, 2).copy_(uu).mul_(c.cub).add_(yy);
  return rgb.bitwise_right_shift_(kShift).clamp_(0, 255);
}

}  // namespace

bool colour_taps_are_bgr(PixelFormat format) {
  return format == PixelFormat::kBGR || format == PixelFormat::kBGRx ||
         format == PixelFormat::kBGRA;
}

torch::Tensor colour_taps(const std::vector<torch::Tensor>& planes, PixelFormat format,
                          const torch::Tensor& rows, const torch::Tensor& cols, YuvMatrix matrix,
                          YuvRange range) {
  if (format != PixelFormat::kNV12 && format != PixelFormat::kI420) {
    // The first three bytes of every packed format are the colours; x / A is dropped.
    const torch::Tensor picked = rows.defined() ? planes[0].index_select(0, rows) : planes[0];
    const torch::Tensor colours = picked.narrow(2, 0, 3).permute({0, 2, 1});  // (R, 3, W)
    return cols.defined() ? gather_last_dim(colours, cols) : colours;
  }
  // Every pixel needs converting anyway, so "all rows / columns" becomes explicit indices.
  const auto index_opts = torch::TensorOptions().dtype(torch::kLong).device(planes[0].device());
  const torch::Tensor r = rows.defined() ? rows : torch::arange(planes[0].size(0), index_opts);
  const torch::Tensor k = cols.defined() ? cols : torch::arange(planes[0].size(1), index_opts);
  const torch::Tensor y = gather_last_dim(planes[0].index_select(0, r), k);
  // Each chroma sample covers 2 x 2 pixels: pixel (r, k) reads chroma (r / 2, k / 2).
  const torch::Tensor chroma_rows = r.div(2, "floor"), chroma_cols = k.div(2, "floor");
  auto chroma = [&](const torch::Tensor& plane) {
    return gather_last_dim(plane.index_select(0, chroma_rows), chroma_cols);
  };
  const YuvCoefficients c = coefficients(matrix, range);
  if (format == PixelFormat::kNV12) {
    const torch::Tensor uv = chroma(planes[1].permute({0, 2, 1}));  // (R, 2, K): U, V
    return yuv_to_rgb(y, uv.select(1, 0), uv.select(1, 1), c);
  }
  return yuv_to_rgb(y, chroma(planes[1]), chroma(planes[2]), c);
}

}  // namespace yolo
