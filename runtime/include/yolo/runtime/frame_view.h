// A raw 8-bit video frame described in place: pixel format, size, and where each plane's rows
// are. Nothing is copied; the GStreamer element fills one straight from a mapped GstVideoFrame
// (GST_VIDEO_FRAME_PLANE_DATA / GST_VIDEO_FRAME_PLANE_STRIDE) or from GstVideoInfo's offsets
// with FrameView::from_offsets(). Consumed by preprocess_frames() (device_preprocess.h); OpenCV
// images are described by frame_view_of_mat() (mat_frame_view.h, the OpenCV edge).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace yolo {

// Pixel layouts, named as GStreamer's video/x-raw formats. Packed formats list their bytes in
// memory order; "x" is an ignored byte, "A" an alpha byte (dropped: models take 3 channels).
enum class PixelFormat {
  kBGR,   // 3 bytes: B G R (OpenCV's default)
  kRGB,   // 3 bytes: R G B
  kBGRx,  // 4 bytes: B G R x
  kRGBx,  // 4 bytes: R G B x
  kBGRA,  // 4 bytes: B G R A
  kRGBA,  // 4 bytes: R G B A
  kNV12,  // plane 0: Y, w x h bytes; plane 1: interleaved U V, w/2 pairs x h/2 rows
  kI420,  // plane 0: Y, w x h; plane 1: U, w/2 x h/2; plane 2: V, w/2 x h/2
};

// GStreamer's name of the format: "BGRx", "NV12", ...
const char* to_string(PixelFormat format);
// Bytes per pixel of a packed format; 0 for the planar YUV formats.
int bytes_per_pixel(PixelFormat format);
// 1 for packed formats, 2 for NV12, 3 for I420.
int plane_count(PixelFormat format);
// Bytes of one row of pixels in `plane` (the least valid stride): width * bytes per pixel for
// packed formats, width for Y and NV12's UV, width / 2 for I420's U and V.
int64_t min_plane_stride(PixelFormat format, int width, int plane);

// One frame in memory the caller owns; never modified. Plane i starts at data[i] and its rows
// are stride[i] bytes apart (>= min_plane_stride; row padding is skipped). NV12 and I420 need
// an even width and height (4:2:0 chroma covers 2 x 2 pixels).
struct FrameView {
  PixelFormat format = PixelFormat::kBGR;
  int width = 0, height = 0;             // pixels
  std::array<const uint8_t*, 3> data{};  // plane starts; planes past plane_count stay null
  std::array<int64_t, 3> stride{};       // bytes from one row to the next, per plane

  // A packed frame (one plane). stride 0: tightly packed rows (width * bytes per pixel).
  static FrameView packed(PixelFormat format, int width, int height, const uint8_t* data,
                          int64_t stride = 0);
  // Planes inside one buffer at byte offsets, as GstVideoInfo describes a mapped buffer:
  // from_offsets(fmt, info.width, info.height, map.data, info.offset, info.stride). The arrays
  // hold at least plane_count(format) entries.
  static FrameView from_offsets(PixelFormat format, int width, int height, const uint8_t* base,
                                const size_t* offsets, const int* strides);
};

}  // namespace yolo
