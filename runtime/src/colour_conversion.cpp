#include "colour_conversion.h"

#include <torch/torch.h>

#include <cstdint>

#include "linear_resize.h"

namespace yolo {
namespace {

constexpr int kShift = YuvCoefficients::kShift;

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
  const YuvCoefficients c = yuv_coefficients(matrix, range);
  if (format == PixelFormat::kNV12) {
    const torch::Tensor uv = chroma(planes[1].permute({0, 2, 1}));  // (R, 2, K): U, V
    return yuv_to_rgb(y, uv.select(1, 0), uv.select(1, 1), c);
  }
  return yuv_to_rgb(y, chroma(planes[1]), chroma(planes[2]), c);
}

}  // namespace yolo
