#include "resize_axis.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace yolo {
namespace {

constexpr float kWeightScale = 1 << kResizeWeightBits;

// cv::saturate_cast<short>(float): round half to even (the FPU's default mode), then clamp.
int64_t to_fixed_weight(float w) {
  const long r = std::lrint(w * kWeightScale);
  return std::clamp<long>(r, std::numeric_limits<int16_t>::min(),
                          std::numeric_limits<int16_t>::max());
}

}  // namespace

ResizeAxis sample_resize_axis(int src, int dst, bool clamp_coordinate) {
  ResizeAxis t;
  t.taps.resize(2 * static_cast<size_t>(dst));
  t.weights.resize(t.taps.size());
  // OpenCV derives the step as 1 / (dst / src) in double and the coordinate in float.
  const double scale = 1.0 / (static_cast<double>(dst) / src);
  for (int d = 0; d < dst; ++d) {
    float f = static_cast<float>((d + 0.5) * scale - 0.5);
    int s = static_cast<int>(std::floor(f));
    f -= static_cast<float>(s);
    if (clamp_coordinate) {
      if (s < 0) {
        f = 0;
        s = 0;
      }
      if (s >= src - 1) {
        f = 0;
        s = src - 1;
      }
    }
    t.taps[d] = std::clamp(s, 0, src - 1);
    t.taps[d + dst] = std::clamp(s + 1, 0, src - 1);
    t.weights[d] = to_fixed_weight(1.f - f);
    t.weights[d + dst] = to_fixed_weight(f);
  }
  return t;
}

}  // namespace yolo
