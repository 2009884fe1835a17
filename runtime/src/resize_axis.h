// The sampling of one axis of OpenCV's 8-bit INTER_LINEAR resize (cv::resize): per output pixel
// its two source taps and their 11-bit fixed-point weights. Shared by the two replays of that
// resize, with tensors on any device (linear_resize.h) and on the CPU over bytes
// (cpu_linear_resize.h), so that both read the same taps with the same weights.
#pragma once

#include <cstdint>
#include <vector>

namespace yolo {

// OpenCV's INTER_RESIZE_COEF_BITS: weights are integers out of 2048.
inline constexpr int kResizeWeightBits = 11;

// The first taps of all output pixels, then the second taps, with their weights in the same
// order (taps.size() == weights.size() == 2 * dst).
struct ResizeAxis {
  std::vector<int64_t> taps, weights;
};

// `clamp_coordinate`: columns clamp the coordinate itself (fraction 0 on the edge pixel), rows
// only clamp the indices and keep both weights; that is how OpenCV treats each axis.
ResizeAxis sample_resize_axis(int src, int dst, bool clamp_coordinate);

}  // namespace yolo
