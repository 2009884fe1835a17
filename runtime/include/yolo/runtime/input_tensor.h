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

// One row of `pixels` BGR bytes -> the input's RGB planes, x / 255 (the arithmetic of
// images_to_tensor, shared with the frame preprocessing that writes in place).
void bgr_row_to_planes(const uint8_t* bgr, int pixels, float* red, float* green, float* blue);

}  // namespace yolo
