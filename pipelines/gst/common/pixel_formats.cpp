#include "yolo/gst/pixel_formats.h"

namespace yolo::gst {

std::optional<PixelFormat> pixel_format_of(GstVideoFormat format) {
  switch (format) {
    case GST_VIDEO_FORMAT_BGR:
      return PixelFormat::kBGR;
    case GST_VIDEO_FORMAT_RGB:
      return PixelFormat::kRGB;
    case GST_VIDEO_FORMAT_BGRx:
      return PixelFormat::kBGRx;
    case GST_VIDEO_FORMAT_RGBx:
      return PixelFormat::kRGBx;
    case GST_VIDEO_FORMAT_BGRA:
      return PixelFormat::kBGRA;
    case GST_VIDEO_FORMAT_RGBA:
      return PixelFormat::kRGBA;
    case GST_VIDEO_FORMAT_NV12:
      return PixelFormat::kNV12;
    case GST_VIDEO_FORMAT_I420:
      return PixelFormat::kI420;
    default:
      return std::nullopt;
  }
}

}  // namespace yolo::gst
