#include "cpu_linear_resize.h"

#include <algorithm>

#include "resize_axis.h"

namespace yolo {
namespace {

constexpr int kChannels = 3;

uint8_t saturate_byte(int32_t v) {
  return static_cast<uint8_t>(std::clamp(v, 0, 255));
}

}  // namespace

void CpuLinearResize::prepare(int src_h, int src_w, int dst_h, int dst_w) {
  if (src_h == src_h_ && src_w == src_w_ && dst_h == dst_h_ && dst_w == dst_w_) return;
  const ResizeAxis cols = sample_resize_axis(src_w, dst_w, /*clamp_coordinate=*/true);
  const ResizeAxis rows = sample_resize_axis(src_h, dst_h, /*clamp_coordinate=*/false);
  const size_t values = static_cast<size_t>(dst_w) * kChannels;
  for (auto* v : {&x_offset0_, &x_offset1_, &x_weight0_, &x_weight1_}) v->resize(values);
  for (int x = 0; x < dst_w; ++x) {
    for (int c = 0; c < kChannels; ++c) {
      const size_t i = static_cast<size_t>(x) * kChannels + static_cast<size_t>(c);
      x_offset0_[i] = static_cast<int32_t>(cols.taps[x] * kChannels + c);
      x_offset1_[i] = static_cast<int32_t>(cols.taps[x + dst_w] * kChannels + c);
      x_weight0_[i] = static_cast<int32_t>(cols.weights[x]);
      x_weight1_[i] = static_cast<int32_t>(cols.weights[x + dst_w]);
    }
  }
  for (auto* v : {&y_row0_, &y_row1_, &y_weight0_, &y_weight1_})
    v->resize(static_cast<size_t>(dst_h));
  for (int y = 0; y < dst_h; ++y) {
    y_row0_[y] = static_cast<int32_t>(rows.taps[y]);
    y_row1_[y] = static_cast<int32_t>(rows.taps[y + dst_h]);
    y_weight0_[y] = static_cast<int32_t>(rows.weights[y]);
    y_weight1_[y] = static_cast<int32_t>(rows.weights[y + dst_h]);
  }
  for (auto& s : sums_) s.resize(values);
  src_h_ = src_h;
  src_w_ = src_w;
  dst_h_ = dst_h;
  dst_w_ = dst_w;
}

void CpuLinearResize::horizontal(const uint8_t* row, int32_t* sums) const {
  const size_t n = x_offset0_.size();
  const int32_t* o0 = x_offset0_.data();
  const int32_t* o1 = x_offset1_.data();
  const int32_t* w0 = x_weight0_.data();
  const int32_t* w1 = x_weight1_.data();
  for (size_t i = 0; i < n; ++i) sums[i] = row[o0[i]] * w0[i] + row[o1[i]] * w1[i];
}

void CpuLinearResize::run(const uint8_t* src, int src_h, int src_w, size_t src_step, uint8_t* dst,
                          int dst_h, int dst_w, size_t dst_step) {
  prepare(src_h, src_w, dst_h, dst_w);
  sums_row_[0] = sums_row_[1] = -1;  // a new image
  const int values = dst_w * kChannels;
  for (int y = 0; y < dst_h; ++y) {
    // The two source rows' sums, each computed once while consecutive output rows share it
    // (upscaling), as OpenCV's ring of rows does.
    const int32_t* s[2];
    const int rows[2] = {y_row0_[y], y_row1_[y]};
    for (int k = 0; k < 2; ++k) {
      int slot = sums_row_[0] == rows[k] ? 0 : sums_row_[1] == rows[k] ? 1 : -1;
      if (slot < 0) {
        // The slot that does not hold this output row's other tap.
        slot = sums_row_[0] == rows[1 - k] ? 1 : 0;
        horizontal(src + static_cast<size_t>(rows[k]) * src_step, sums_[slot].data());
        sums_row_[slot] = rows[k];
      }
      s[k] = sums_[slot].data();
    }
    const int32_t b0 = y_weight0_[y], b1 = y_weight1_[y];
    uint8_t* out = dst + static_cast<size_t>(y) * dst_step;
    for (int x = 0; x < values; ++x) {
      // Each weighted row truncated on its own before the sum, as OpenCV's vector pass does.
      const int32_t v = ((b0 * (s[0][x] >> 4)) >> 16) + ((b1 * (s[1][x] >> 4)) >> 16);
      out[x] = saturate_byte((v + 2) >> 2);
    }
  }
}

}  // namespace yolo
