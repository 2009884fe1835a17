#include "yolo/runtime/cpu_frame_preprocess.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <opencv2/imgproc.hpp>
#include <stdexcept>

#include "frame_upload.h"
#include "yolo/core/yuv_colour.h"
#include "yolo/runtime/input_tensor.h"
#include "yolo/runtime/letterbox.h"

namespace yolo {
namespace {

// A packed plane as a cv::Mat view (no copy; the frame outlives the call).
cv::Mat plane_view(const FrameView& f, int channels) {
  return cv::Mat(f.height, f.width, CV_8UC(channels), const_cast<uint8_t*>(f.data[0]),
                 static_cast<size_t>(f.stride[0]));
}

// BT.601 limited range, the common case, through OpenCV's SIMD conversion: the same bytes as
// yuv_row_to_bgr (its coefficients are OpenCV's), several times faster.
cv::Mat bt601_limited_to_bgr(const FrameView& f, cv::Mat& scratch) {
  const int w = f.width, h = f.height;
  auto plane = [&](int p, int rows, int cols, int type) {
    return cv::Mat(rows, cols, type, const_cast<uint8_t*>(f.data[p]),
                   static_cast<size_t>(f.stride[p]));
  };
  if (f.format == PixelFormat::kNV12) {
    cv::cvtColorTwoPlane(plane(0, h, w, CV_8UC1), plane(1, h / 2, w / 2, CV_8UC2), scratch,
                         cv::COLOR_YUV2BGR_NV12);
    return scratch;
  }
  // I420: cvtColor wants the three planes stacked without padding.
  cv::Mat stacked(h * 3 / 2, w, CV_8UC1);
  plane(0, h, w, CV_8UC1).copyTo(stacked.rowRange(0, h));
  const int quarter = (w / 2) * (h / 2);
  cv::Mat u(h / 2, w / 2, CV_8UC1, stacked.ptr(h)),
      v(h / 2, w / 2, CV_8UC1, stacked.ptr(h) + quarter);
  plane(1, h / 2, w / 2, CV_8UC1).copyTo(u);
  plane(2, h / 2, w / 2, CV_8UC1).copyTo(v);
  cv::cvtColor(stacked, scratch, cv::COLOR_YUV2BGR_I420);
  return scratch;
}

// The frame as 8-bit BGR: a view of a BGR frame, else a conversion into `scratch`.
cv::Mat bgr_of(const FrameView& f, const DevicePreprocessOptions& o, cv::Mat& scratch) {
  switch (f.format) {
    case PixelFormat::kBGR:
      return plane_view(f, 3);
    case PixelFormat::kRGB:
      cv::cvtColor(plane_view(f, 3), scratch, cv::COLOR_RGB2BGR);
      return scratch;
    case PixelFormat::kBGRx:
    case PixelFormat::kBGRA:
      cv::cvtColor(plane_view(f, 4), scratch, cv::COLOR_BGRA2BGR);
      return scratch;
    case PixelFormat::kRGBx:
    case PixelFormat::kRGBA:
      cv::cvtColor(plane_view(f, 4), scratch, cv::COLOR_RGBA2BGR);
      return scratch;
    case PixelFormat::kNV12:
    case PixelFormat::kI420: {
      if (o.yuv_matrix == YuvMatrix::kBT601 && o.yuv_range == YuvRange::kLimited)
        return bt601_limited_to_bgr(f, scratch);
      scratch.create(f.height, f.width, CV_8UC3);
      const YuvCoefficients c = yuv_coefficients(o.yuv_matrix, o.yuv_range);
      const bool nv12 = f.format == PixelFormat::kNV12;
      for (int r = 0; r < f.height; ++r) {
        const uint8_t* u = f.data[1] + (r / 2) * f.stride[1];
        const uint8_t* v = nv12 ? u + 1 : f.data[2] + (r / 2) * f.stride[2];
        yuv_row_to_bgr(f.data[0] + r * f.stride[0], u, v, nv12 ? 2 : 1, f.width, c, scratch.ptr(r));
      }
      return scratch;
    }
  }
  throw std::invalid_argument("preprocess_frames_on_cpu: unknown pixel format");
}

}  // namespace

PreprocessedBatch preprocess_frames_on_cpu(const std::vector<FrameView>& frames,
                                           const DevicePreprocessOptions& options) {
  if (frames.empty()) throw std::invalid_argument("preprocess_frames_on_cpu: no frames");
  if (!options.device.is_cpu())
    throw std::invalid_argument("preprocess_frames_on_cpu: the device must be the CPU");
  PreprocessedBatch batch;
  std::vector<cv::Mat> letterboxed;
  cv::Mat scratch;
  for (size_t i = 0; i < frames.size(); ++i) {
    validate_frame(frames[i], i);
    LetterboxTransform t;
    letterboxed.push_back(letterbox(bgr_of(frames[i], options, scratch), options.letterbox, &t));
    const cv::Mat& first = letterboxed.front();
    if (letterboxed.back().size() != first.size()) {
      throw std::invalid_argument(fmt::format(
          "preprocess_frames_on_cpu: frame {} letterboxes to {}x{} but frame 0 to {}x{} "
          "(auto_stride keeps each frame's aspect); batch frames of one size or turn auto_stride "
          "off",
          i, letterboxed.back().cols, letterboxed.back().rows, first.cols, first.rows));
    }
    batch.transforms.push_back(t);
  }
  torch::Tensor x = images_to_tensor(letterboxed);
  batch.input = options.half ? x.to(torch::kHalf) : x;
  return batch;
}

PreprocessedBatch preprocess_frames_for_device(const std::vector<FrameView>& frames,
                                               const DevicePreprocessOptions& options) {
  return options.device.is_cpu() ? preprocess_frames_on_cpu(frames, options)
                                 : preprocess_frames(frames, options);
}

}  // namespace yolo
