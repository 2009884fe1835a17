#include "yolo/runtime/input_tensor.h"

#include <torch/cuda.h>
#include <torch/torch.h>

#include <stdexcept>

namespace yolo {

torch::Tensor images_to_tensor(const std::vector<cv::Mat>& images, bool pin) {
  if (images.empty()) throw std::invalid_argument("images_to_tensor: no images");
  const int h = images[0].rows, w = images[0].cols;
  torch::Tensor hwc = torch::empty({static_cast<int64_t>(images.size()), h, w, 3}, torch::kUInt8);
  for (size_t i = 0; i < images.size(); ++i) {
    const cv::Mat& m = images[i];
    if (m.rows != h || m.cols != w || m.type() != CV_8UC3) {
      throw std::invalid_argument(
          "images_to_tensor: images must be 8-bit BGR and all the same size");
    }
    cv::Mat dst(h, w, CV_8UC3, hwc[static_cast<int64_t>(i)].data_ptr<uint8_t>());
    m.copyTo(dst);  // handles non-contiguous (ROI) sources
  }
  // BGR -> RGB by reversing the channel axis, then NHWC -> NCHW and scale to [0, 1].
  torch::Tensor x = hwc.flip({3}).permute({0, 3, 1, 2}).to(torch::kFloat).div_(255.0).contiguous();
  // Page-locked memory exists only with a GPU runtime (CUDA or ROCm); a CPU build has no
  // allocator for it, and then there is nothing to speed up.
  return pin && torch::cuda::is_available() ? x.pin_memory() : x;
}

}  // namespace yolo
