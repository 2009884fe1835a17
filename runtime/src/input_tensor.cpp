#include "yolo/runtime/input_tensor.h"

#include <torch/cuda.h>
#include <torch/torch.h>

#include <stdexcept>

namespace yolo {

void bgr_row_to_planes(const uint8_t* bgr, int pixels, float* red, float* green, float* blue) {
  for (int c = 0; c < pixels; ++c) {
    blue[c] = static_cast<float>(bgr[3 * c]) / 255.0f;
    green[c] = static_cast<float>(bgr[3 * c + 1]) / 255.0f;
    red[c] = static_cast<float>(bgr[3 * c + 2]) / 255.0f;
  }
}

torch::Tensor images_to_tensor(const std::vector<cv::Mat>& images, bool pin) {
  if (images.empty()) throw std::invalid_argument("images_to_tensor: no images");
  const int h = images[0].rows, w = images[0].cols;
  torch::Tensor x = torch::empty({static_cast<int64_t>(images.size()), 3, h, w}, torch::kFloat);
  for (size_t i = 0; i < images.size(); ++i) {
    const cv::Mat& m = images[i];
    if (m.rows != h || m.cols != w || m.type() != CV_8UC3) {
      throw std::invalid_argument(
          "images_to_tensor: images must be 8-bit BGR and all the same size");
    }
    // One pass: BGR -> RGB planes, x / 255 (a true division, as torch's div_(255.0) on a float
    // tensor: the values are the same bit for bit; test_input_tensor holds them to it). The
    // tensor-op chain (flip, permute, cast, divide, contiguous) read and wrote the image 5 times.
    float* out = x[static_cast<int64_t>(i)].data_ptr<float>();
    const size_t plane = static_cast<size_t>(h) * static_cast<size_t>(w);
    for (int r = 0; r < h; ++r) {
      float* red = out + static_cast<size_t>(r) * w;
      bgr_row_to_planes(m.ptr<uint8_t>(r), w, red, red + plane, red + 2 * plane);
    }
  }
  // Page-locked memory exists only with a GPU runtime (CUDA or ROCm); a CPU build has no
  // allocator for it, and then there is nothing to speed up.
  return pin && torch::cuda::is_available() ? x.pin_memory() : x;
}

}  // namespace yolo
