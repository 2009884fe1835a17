// OpenCV's cv::resize(INTER_LINEAR) for 8-bit images, replayed with tensor operations so that
// it runs on any torch device and gives the same bytes as the CPU letterbox.
//
// OpenCV's 8-bit bilinear path is fixed point: per output column/row it takes the half-pixel
// centre source coordinate (float), splits it into an index and a fraction, and rounds the two
// weights to 11 bits (x 2048). The horizontal pass keeps the integer sums S; the vertical pass
// combines two such rows as ((b0 * (S0 >> 4)) >> 16) + ((b1 * (S1 >> 4)) >> 16), + 2, >> 2.
// Columns beyond the edges clamp the coordinate (weight 2048 on the edge pixel); rows beyond
// the edges clamp only the row index and keep both weights, which can differ from a clamped
// coordinate by one grey level, so both are replayed as OpenCV does them. No antialiasing: like
// INTER_LINEAR, a downscale reads only the two nearest source pixels per axis.
//
// The work is split so that callers touch only the source pixels the resize reads: they gather
// the "taps" (source_rows() x source_cols()), convert them (colour_conversion.h; per-pixel, so
// gathering first gives the same bytes), and apply() weighs them.
#pragma once

#include <torch/types.h>

namespace yolo {

class LinearResize {
 public:
  // The sampling tables (host arithmetic, then one upload to `device`).
  LinearResize(int src_height, int src_width, int dst_height, int dst_width,
               const torch::Device& device);

  // The source rows (R,) and columns (K,) the resize reads, int64 on the device; undefined
  // tensors when the size does not change (then every row and column is read as it is).
  // R <= min(src_height, 2 * dst_height); K = 2 * dst_width (each output column's two taps).
  const torch::Tensor& source_rows() const { return source_rows_; }
  const torch::Tensor& source_cols() const { return source_cols_; }

  // taps: (R, C, K) uint8 or int32 holding 0..255, the pixels at source_rows() x
  // source_cols() (any strides; rows outermost so that the vertical pass gathers whole rows).
  // Returns (dst_height, C, dst_width) int32 holding 0..255 on the same device (taps itself
  // when the size does not change).
  torch::Tensor apply(const torch::Tensor& taps) const;

 private:
  int64_t dst_height_ = 0, dst_width_ = 0;
  torch::Tensor source_rows_, source_cols_;
  torch::Tensor tap_rows_;     // (2 * dst_h,) int64: both taps of each output row, in taps
  torch::Tensor col_weights_;  // (1, 1, K) int32: 11-bit weights, first taps then second taps
  torch::Tensor row_weights_;  // (2 * dst_h, 1, 1) int32, likewise
};

// t[..., cols]: (..., W) -> (..., K) for int64 indices cols (K,). torch::gather with a
// broadcast index; on the CPU several times faster than index_select on the last dimension.
torch::Tensor gather_last_dim(const torch::Tensor& t, const torch::Tensor& cols);

// The whole resize of an (H, W, C) uint8 image to (dst_height, dst_width, C) uint8.
torch::Tensor resize_linear(const torch::Tensor& image, int dst_height, int dst_width);

}  // namespace yolo
