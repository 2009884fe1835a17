// OpenCV's cv::resize(INTER_LINEAR) of 8-bit 3-channel images, replayed on the CPU over bytes
// with tables and row buffers kept from call to call: resizing frame after frame of one size
// allocates nothing (cv::resize allocates its coefficient table and row buffers on every call).
//
// The arithmetic is OpenCV's, bit for bit (test_device_preprocess holds it to cv::resize on
// random sizes and camera sizes): the taps and 11-bit weights of resize_axis.h; the horizontal
// pass keeps exact integer sums S = p0 * a0 + p1 * a1; the vertical pass truncates each weighted
// row before the sum, ((b0 * (S0 >> 4)) >> 16) + ((b1 * (S1 >> 4)) >> 16), then + 2, >> 2. That
// is OpenCV's vector form, which (measured on Debian's OpenCV 4.6) covers every value of a row,
// the last ones of widths that are not a multiple of the vector size included; its scalar
// rounding (S0 * b0 + S1 * b1 + 2^21) >> 22 would differ by one grey level now and then.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace yolo {

class CpuLinearResize {
 public:
  // src: src_h rows of src_w BGR pixels, `src_step` bytes apart; dst likewise at dst_h x dst_w.
  // Tables are computed again only when a size changes.
  void run(const uint8_t* src, int src_h, int src_w, size_t src_step, uint8_t* dst, int dst_h,
           int dst_w, size_t dst_step);

 private:
  void prepare(int src_h, int src_w, int dst_h, int dst_w);
  // Horizontal pass of source row r into `sums` (dst_w * 3 values).
  void horizontal(const uint8_t* row, int32_t* sums) const;

  int src_h_ = -1, src_w_ = -1, dst_h_ = -1, dst_w_ = -1;
  // Per output value (dst_w * 3): byte offsets of both taps in a source row, and their weights.
  std::vector<int32_t> x_offset0_, x_offset1_, x_weight0_, x_weight1_;
  // Per output row: both source rows and their weights.
  std::vector<int32_t> y_row0_, y_row1_, y_weight0_, y_weight1_;
  // Two horizontal sums rows and which source rows they hold (-1: none).
  std::vector<int32_t> sums_[2];
  int sums_row_[2] = {-1, -1};
};

}  // namespace yolo
