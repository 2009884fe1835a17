#include "yolo/runtime/frame_view.h"

#include <fmt/format.h>

#include <stdexcept>

namespace yolo {

const char* to_string(PixelFormat format) {
  switch (format) {
    case PixelFormat::kBGR:
      return "BGR";
    case PixelFormat::kRGB:
      return "RGB";
    case PixelFormat::kBGRx:
      return "BGRx";
    case PixelFormat::kRGBx:
      return "RGBx";
    case PixelFormat::kBGRA:
      return "BGRA";
    case PixelFormat::kRGBA:
      return "RGBA";
    case PixelFormat::kNV12:
      return "NV12";
    case PixelFormat::kI420:
      return "I420";
  }
  return "unknown";
}

int bytes_per_pixel(PixelFormat format) {
  switch (format) {
    case PixelFormat::kBGR:
    case PixelFormat::kRGB:
      return 3;
    case PixelFormat::kBGRx:
    case PixelFormat::kRGBx:
    case PixelFormat::kBGRA:
    case PixelFormat::kRGBA:
      return 4;
    case PixelFormat::kNV12:
    case PixelFormat::kI420:
      return 0;
  }
  return 0;
}

int plane_count(PixelFormat format) {
  switch (format) {
    case PixelFormat::kNV12:
      return 2;
    case PixelFormat::kI420:
      return 3;
    default:
      return 1;
  }
}

int64_t min_plane_stride(PixelFormat format, int width, int plane) {
  if (plane == 0) {
    const int bpp = bytes_per_pixel(format);
    return static_cast<int64_t>(width) * (bpp > 0 ? bpp : 1);
  }
  // NV12's UV rows hold width / 2 pairs = width bytes; I420's U and V rows width / 2 bytes.
  return format == PixelFormat::kNV12 ? width : width / 2;
}

FrameView FrameView::packed(PixelFormat format, int width, int height, const uint8_t* data,
                            int64_t stride) {
  if (plane_count(format) != 1) {
    throw std::invalid_argument(fmt::format(
        "FrameView::packed: {} is a planar format; use FrameView::from_offsets or fill the "
        "planes",
        to_string(format)));
  }
  FrameView f;
  f.format = format;
  f.width = width;
  f.height = height;
  f.data[0] = data;
  f.stride[0] = stride > 0 ? stride : min_plane_stride(format, width, 0);
  return f;
}

FrameView FrameView::from_offsets(PixelFormat format, int width, int height, const uint8_t* base,
                                  const size_t* offsets, const int* strides) {
  FrameView f;
  f.format = format;
  f.width = width;
  f.height = height;
  for (int p = 0; p < plane_count(format); ++p) {
    f.data[p] = base ? base + offsets[p] : nullptr;
    f.stride[p] = strides[p];
  }
  return f;
}

}  // namespace yolo
