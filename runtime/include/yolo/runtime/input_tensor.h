// Letterboxed BGR images -> the model's input tensor: RGB, /255, NCHW float (shared/DESIGN.md).
#pragma once

#include <torch/types.h>

#include <opencv2/core/mat.hpp>
#include <vector>

namespace yolo {

// images: 8-bit BGR, all of the same size (H, W). Returns (B, 3, H, W) float32 in [0, 1], RGB,
// on the CPU; the caller moves it to the device. With `pin`, the result is page-locked when a
// GPU runtime is present (faster, asynchronous uploads); otherwise `pin` has no effect.
torch::Tensor images_to_tensor(const std::vector<cv::Mat>& images, bool pin = false);

}  // namespace yolo
