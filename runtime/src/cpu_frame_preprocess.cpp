#include "yolo/runtime/cpu_frame_preprocess.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <stdexcept>

#include "frame_upload.h"
#include "yolo/runtime/input_tensor.h"
#include "yolo/runtime/letterbox.h"
#include "yolo/runtime/mat_frame_view.h"

namespace yolo {

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
    letterboxed.push_back(
        letterbox(bgr_of_frame(frames[i], options.yuv_matrix, options.yuv_range, scratch),
                  options.letterbox, &t));
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
