#include "yolo/runtime/mat_frame_view.h"

#include <fmt/format.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <stdexcept>

namespace yolo {
namespace {

// A packed plane as a cv::Mat view (no copy; the frame outlives the call).
cv::Mat plane_view(const FrameView& f, int channels) {
  return cv::Mat(f.height, f.width, CV_8UC(channels), const_cast<uint8_t*>(f.data[0]),
                 static_cast<size_t>(f.stride[0]));
}

// BT.601 limited range, the common case, through OpenCV's SIMD conversion: the same bytes as
// yuv_rows_to_bgr (its coefficients are OpenCV's), several times faster.
cv::Mat bt601_limited_to_bgr(const FrameView& f, BgrScratch& scratch) {
  const int w = f.width, h = f.height;
  auto plane = [&](int p, int rows, int cols, int type) {
    return cv::Mat(rows, cols, type, const_cast<uint8_t*>(f.data[p]),
                   static_cast<size_t>(f.stride[p]));
  };
  if (f.format == PixelFormat::kNV12) {
    cv::cvtColorTwoPlane(plane(0, h, w, CV_8UC1), plane(1, h / 2, w / 2, CV_8UC2), scratch.bgr,
                         cv::COLOR_YUV2BGR_NV12);
    return scratch.bgr;
  }
  // I420: cvtColor wants the three planes stacked without padding.
  cv::Mat& stacked = scratch.stacked_yuv;
  stacked.create(h * 3 / 2, w, CV_8UC1);
  plane(0, h, w, CV_8UC1).copyTo(stacked.rowRange(0, h));
  const int quarter = (w / 2) * (h / 2);
  cv::Mat u(h / 2, w / 2, CV_8UC1, stacked.ptr(h)),
      v(h / 2, w / 2, CV_8UC1, stacked.ptr(h) + quarter);
  plane(1, h / 2, w / 2, CV_8UC1).copyTo(u);
  plane(2, h / 2, w / 2, CV_8UC1).copyTo(v);
  cv::cvtColor(stacked, scratch.bgr, cv::COLOR_YUV2BGR_I420);
  return scratch.bgr;
}

}  // namespace

cv::Mat bgr_of_frame(const FrameView& f, YuvMatrix matrix, YuvRange range, BgrScratch& scratch) {
  switch (f.format) {
    case PixelFormat::kBGR:
      return plane_view(f, 3);
    case PixelFormat::kRGB:
      cv::cvtColor(plane_view(f, 3), scratch.bgr, cv::COLOR_RGB2BGR);
      return scratch.bgr;
    case PixelFormat::kBGRx:
    case PixelFormat::kBGRA:
      cv::cvtColor(plane_view(f, 4), scratch.bgr, cv::COLOR_BGRA2BGR);
      return scratch.bgr;
    case PixelFormat::kRGBx:
    case PixelFormat::kRGBA:
      cv::cvtColor(plane_view(f, 4), scratch.bgr, cv::COLOR_RGBA2BGR);
      return scratch.bgr;
    case PixelFormat::kNV12:
    case PixelFormat::kI420: {
      // OpenCV's conversion takes even sizes only; odd ones (chroma rounded up) take the loop.
      if (matrix == YuvMatrix::kBT601 && range == YuvRange::kLimited && f.width % 2 == 0 &&
          f.height % 2 == 0)
        return bt601_limited_to_bgr(f, scratch);
      const bool nv12 = f.format == PixelFormat::kNV12;
      YuvPlanes planes;
      planes.y = f.data[0];
      planes.u = f.data[1];
      planes.v = nv12 ? f.data[1] + 1 : f.data[2];
      planes.y_stride = f.stride[0];
      planes.u_stride = f.stride[1];
      planes.v_stride = f.stride[nv12 ? 1 : 2];
      planes.interleaved = nv12;
      planes.width = f.width;
      scratch.bgr.create(f.height, f.width, CV_8UC3);
      yuv_rows_to_bgr(planes, yuv_coefficients(matrix, range), 0, f.height, scratch.bgr.data,
                      scratch.bgr.step[0]);
      return scratch.bgr;
    }
  }
  throw std::invalid_argument("bgr_of_frame: unknown pixel format");
}

FrameView frame_view_of_mat(const cv::Mat& image, PixelFormat format) {
  const int bpp = bytes_per_pixel(format);
  if (bpp == 0 || image.depth() != CV_8U || image.channels() != bpp) {
    throw std::invalid_argument(fmt::format(
        "frame_view_of_mat: a {} frame needs an 8-bit image with {} channels, got type {}",
        to_string(format), bpp, cv::typeToString(image.type())));
  }
  return FrameView::packed(format, image.cols, image.rows, image.data,
                           static_cast<int64_t>(image.step[0]));
}

}  // namespace yolo
