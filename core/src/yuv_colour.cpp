#include "yolo/core/yuv_colour.h"

#include <algorithm>
#include <cmath>

namespace yolo {
namespace {

int32_t fixed(double c) {
  return static_cast<int32_t>(std::lround(c * (1 << YuvCoefficients::kShift)));
}

uint8_t clamp_shift(int32_t value) {
  return static_cast<uint8_t>(std::clamp(value >> YuvCoefficients::kShift, 0, 255));
}

// One row: chroma sample k (u_step bytes apart) covers pixels 2k and 2k+1.
void yuv_row_to_bgr(const uint8_t* y, const uint8_t* u, const uint8_t* v, int u_step, int width,
                    const YuvCoefficients& c, uint8_t* bgr) {
  constexpr int32_t kHalf = 1 << (YuvCoefficients::kShift - 1);
  for (int x = 0; x < width; ++x) {
    const int k = (x >> 1) * u_step;
    const int32_t uu = u[k] - 128, vv = v[k] - 128;
    // OpenCV clamps Y - 16 at 0 before scaling (footroom reads as black).
    const int32_t yy = std::max(y[x] - c.y_offset, 0) * c.cy + kHalf;
    bgr[3 * x + 0] = clamp_shift(yy + c.cub * uu);
    bgr[3 * x + 1] = clamp_shift(yy + c.cvg * vv + c.cug * uu);
    bgr[3 * x + 2] = clamp_shift(yy + c.cvr * vv);
  }
}

}  // namespace

YuvCoefficients yuv_coefficients(YuvMatrix matrix, YuvRange range) {
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

void yuv_rows_to_bgr(const YuvPlanes& p, const YuvCoefficients& c, int row_begin, int row_end,
                     uint8_t* bgr, size_t bgr_step) {
  for (int r = row_begin; r < row_end; ++r) {
    const int64_t chroma_row = r / 2;
    yuv_row_to_bgr(p.y + r * p.y_stride, p.u + chroma_row * p.u_stride,
                   p.v + chroma_row * p.v_stride, p.interleaved ? 2 : 1, p.width, c,
                   bgr + static_cast<size_t>(r) * bgr_step);
  }
}

}  // namespace yolo
