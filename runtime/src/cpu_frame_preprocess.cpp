#include "yolo/runtime/cpu_frame_preprocess.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <opencv2/core/saturate.hpp>
#include <stdexcept>

#include "cpu_linear_resize.h"
#include "frame_upload.h"
#include "yolo/runtime/input_tensor.h"

namespace yolo {

CpuFramePreprocessor::CpuFramePreprocessor() : resize_(std::make_unique<CpuLinearResize>()) {}
CpuFramePreprocessor::~CpuFramePreprocessor() = default;
CpuFramePreprocessor::CpuFramePreprocessor(CpuFramePreprocessor&&) noexcept = default;
CpuFramePreprocessor& CpuFramePreprocessor::operator=(CpuFramePreprocessor&&) noexcept = default;

LetterboxTransform CpuFramePreprocessor::run(const FrameView& frame,
                                             const DevicePreprocessOptions& options, float* out) {
  validate_frame(frame, 0);
  const cv::Mat bgr = bgr_of_frame(frame, options.yuv_matrix, options.yuv_range, bgr_);
  const LetterboxTransform t = compute_letterbox(bgr.rows, bgr.cols, options.letterbox);
  cv::Mat content = bgr;
  if (t.resized_width != bgr.cols || t.resized_height != bgr.rows) {
    // letterbox()'s cv::resize, replayed into a buffer kept for the next frame.
    resized_.create(t.resized_height, t.resized_width, CV_8UC3);
    resize_->run(bgr.data, bgr.rows, bgr.cols, bgr.step[0], resized_.data, resized_.rows,
                 resized_.cols, resized_.step[0]);
    content = resized_;
  }
  // The padded image, row by row, straight into the planes: the padding as letterbox()'s
  // copyMakeBorder makes it (the value saturated to a byte), then / 255 as images_to_tensor.
  const float pad =
      static_cast<float>(cv::saturate_cast<uchar>(options.letterbox.pad_value)) / 255.0f;
  const size_t plane = static_cast<size_t>(t.out_height) * static_cast<size_t>(t.out_width);
  for (int r = 0; r < t.out_height; ++r) {
    float* red = out + static_cast<size_t>(r) * static_cast<size_t>(t.out_width);
    float* green = red + plane;
    float* blue = green + plane;
    const int source_row = r - t.pad_top;
    if (source_row < 0 || source_row >= t.resized_height) {
      for (float* p : {red, green, blue}) std::fill(p, p + t.out_width, pad);
      continue;
    }
    for (float* p : {red, green, blue}) {
      std::fill(p, p + t.pad_left, pad);
      std::fill(p + t.pad_left + t.resized_width, p + t.out_width, pad);
    }
    bgr_row_to_planes(content.ptr<uint8_t>(source_row), t.resized_width, red + t.pad_left,
                      green + t.pad_left, blue + t.pad_left);
  }
  return t;
}

PreprocessedBatch preprocess_frames_on_cpu(const std::vector<FrameView>& frames,
                                           const DevicePreprocessOptions& options) {
  if (frames.empty()) throw std::invalid_argument("preprocess_frames_on_cpu: no frames");
  if (!options.device.is_cpu())
    throw std::invalid_argument("preprocess_frames_on_cpu: the device must be the CPU");
  PreprocessedBatch batch;
  for (size_t i = 0; i < frames.size(); ++i) {
    validate_frame(frames[i], i);
    batch.transforms.push_back(
        compute_letterbox(frames[i].height, frames[i].width, options.letterbox));
    const LetterboxTransform& t = batch.transforms.back();
    const LetterboxTransform& first = batch.transforms.front();
    if (t.out_height != first.out_height || t.out_width != first.out_width) {
      throw std::invalid_argument(fmt::format(
          "preprocess_frames_on_cpu: frame {} letterboxes to {}x{} but frame 0 to {}x{} "
          "(auto_stride keeps each frame's aspect); batch frames of one size or turn auto_stride "
          "off",
          i, t.out_width, t.out_height, first.out_width, first.out_height));
    }
  }
  const LetterboxTransform& first = batch.transforms.front();
  torch::Tensor x = torch::empty(
      {static_cast<int64_t>(frames.size()), 3, first.out_height, first.out_width}, torch::kFloat);
  CpuFramePreprocessor preprocessor;
  for (size_t i = 0; i < frames.size(); ++i)
    preprocessor.run(frames[i], options, x[static_cast<int64_t>(i)].data_ptr<float>());
  batch.input = options.half ? x.to(torch::kHalf) : x;
  return batch;
}

PreprocessedBatch preprocess_frames_for_device(const std::vector<FrameView>& frames,
                                               const DevicePreprocessOptions& options) {
  return options.device.is_cpu() ? preprocess_frames_on_cpu(frames, options)
                                 : preprocess_frames(frames, options);
}

}  // namespace yolo
