// YUV (Y'CbCr) -> RGB conversion as integer arithmetic, one definition for every place a frame's
// colours are made: the media decoder (CPU, frame by frame), the runtime's device preprocessing
// (tensors, colour_conversion.cpp) and the GStreamer elements' BGR copies.
//
// Why not GStreamer's videoconvert: in 1.22 its fast 8-bit matrix paths are 2-5 levels off on
// limited-range video (grey 128 comes out 126, white 253), which shifts confidences against
// Ultralytics, whose OpenCV/FFmpeg decode is within 1-2 levels (docs/benchmarks.md, "Decoded
// colours"). Why not cv::cvtColor: it knows only BT.601 limited range.
#pragma once

#include <cstddef>
#include <cstdint>

namespace yolo {

// YUV -> RGB matrix. BT.601 is what cv::cvtColor assumes, what FFmpeg (and so Ultralytics)
// takes for a stream that does not say, and what most IP and USB cameras send; BT.709 is the HD
// standard.
enum class YuvMatrix { kBT601, kBT709 };
// Limited ("TV", Y in 16..235, the default of video streams) or full ("PC"/JPEG, 0..255) range.
enum class YuvRange { kLimited, kFull };

// R = (cy * max(Y - y_offset, 0) + cvr * (V - 128) + 2^19) >> 20, G and B alike, in int32 (the
// largest sum, about 2.3 * 2^20 * 255, stays far below 2^31), clamped to 0..255.
struct YuvCoefficients {
  static constexpr int kShift = 20;
  int y_offset;
  int32_t cy, cvr, cvg, cug, cub;
};

// BT.601 limited range is OpenCV's ITUR_BT_601_* constants verbatim, so that frames match
// cv::cvtColor(COLOR_YUV2BGR_I420 / _NV12) bit for bit; the other combinations derive from the
// standard's Kr, Kb in the same fixed point.
YuvCoefficients yuv_coefficients(YuvMatrix matrix, YuvRange range);

// A 4:2:0 frame's planes: Y, and U and V (I420), or one plane of interleaved U, V (NV12: give
// v = u + 1 and v_stride = u_stride). Each chroma sample covers 2 x 2 pixels, taken
// nearest-neighbour, as OpenCV and FFmpeg's unscaled path do.
struct YuvPlanes {
  const uint8_t* y = nullptr;
  const uint8_t* u = nullptr;
  const uint8_t* v = nullptr;
  int64_t y_stride = 0, u_stride = 0, v_stride = 0;  // bytes from one row to the next
  bool interleaved = false;                          // NV12
  int width = 0;
};

// Rows [row_begin, row_end) of the frame to packed BGR (3 bytes a pixel): row r is written at
// bgr + r * bgr_step. Callers split a frame's rows over threads with it.
void yuv_rows_to_bgr(const YuvPlanes& planes, const YuvCoefficients& c, int row_begin, int row_end,
                     uint8_t* bgr, size_t bgr_step);

}  // namespace yolo
