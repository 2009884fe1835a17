#include "linear_resize.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "resize_axis.h"

namespace yolo {

LinearResize::LinearResize(int src_height, int src_width, int dst_height, int dst_width,
                           const torch::Device& device)
    : dst_height_(dst_height), dst_width_(dst_width) {
  // letterbox() does not call cv::resize at all for an unchanged size.
  if (src_height == dst_height && src_width == dst_width) return;
  ResizeAxis cols = sample_resize_axis(src_width, dst_width, /*clamp_coordinate=*/true);
  ResizeAxis rows = sample_resize_axis(src_height, dst_height, /*clamp_coordinate=*/false);

  // Each source row is gathered once even when several output rows read it (upscaling); the
  // row taps become positions in that list.
  std::vector<int64_t> needed(rows.taps);
  std::sort(needed.begin(), needed.end());
  needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
  for (int64_t& r : rows.taps) {
    r = std::lower_bound(needed.begin(), needed.end(), r) - needed.begin();
  }

  // All tables travel in one host-to-device copy (one transfer instead of five on a GPU).
  std::vector<int64_t> packed(needed);
  for (const std::vector<int64_t>* v : {&cols.taps, &rows.taps, &cols.weights, &rows.weights}) {
    packed.insert(packed.end(), v->begin(), v->end());
  }
  torch::Tensor all = torch::tensor(packed, torch::kLong).to(device);
  int64_t at = 0;
  auto take = [&](int64_t n) {
    torch::Tensor part = all.narrow(0, at, n);
    at += n;
    return part;
  };
  source_rows_ = take(static_cast<int64_t>(needed.size()));
  source_cols_ = take(2 * dst_width_);
  tap_rows_ = take(2 * dst_height_);
  col_weights_ = take(2 * dst_width_).to(torch::kInt).view({1, 1, 2 * dst_width_});
  row_weights_ = take(2 * dst_height_).to(torch::kInt).view({2 * dst_height_, 1, 1});
}

torch::Tensor LinearResize::apply(const torch::Tensor& taps) const {
  if (!source_cols_.defined()) return taps;
  // Horizontal pass: S = p0 * a0 + p1 * a1 (scale 2048) per row, then OpenCV's S >> 4. The
  // uint8 taps are promoted to int32 inside the multiplications, never copied as a whole.
  const torch::Tensor a0 = col_weights_.narrow(2, 0, dst_width_);
  const torch::Tensor a1 = col_weights_.narrow(2, dst_width_, dst_width_);
  torch::Tensor s = taps.narrow(2, 0, dst_width_) * a0;
  s.addcmul_(taps.narrow(2, dst_width_, dst_width_), a1);
  s.bitwise_right_shift_(4);
  // Vertical pass: each weighted row is truncated on its own before the sum, as OpenCV does.
  torch::Tensor v = s.index_select(0, tap_rows_).mul_(row_weights_).bitwise_right_shift_(16);
  torch::Tensor out = v.narrow(0, 0, dst_height_).add_(v.narrow(0, dst_height_, dst_height_));
  return out.add_(2).bitwise_right_shift_(2).clamp_(0, 255);
}

torch::Tensor gather_last_dim(const torch::Tensor& t, const torch::Tensor& cols) {
  std::vector<int64_t> view(static_cast<size_t>(t.dim()), 1), sizes = t.sizes().vec();
  view.back() = sizes.back() = cols.size(0);
  return torch::gather(t, t.dim() - 1, cols.view(view).expand(sizes));
}

torch::Tensor resize_linear(const torch::Tensor& image, int dst_height, int dst_width) {
  LinearResize resize(static_cast<int>(image.size(0)), static_cast<int>(image.size(1)), dst_height,
                      dst_width, image.device());
  torch::Tensor taps = image.permute({0, 2, 1});  // (H, C, W)
  if (resize.source_rows().defined()) {
    taps = gather_last_dim(taps.index_select(0, resize.source_rows()), resize.source_cols());
  }
  return resize.apply(taps).permute({0, 2, 1}).to(torch::kByte);
}

}  // namespace yolo
