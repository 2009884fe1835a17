// The planes of a FrameView as uint8 tensors on the preprocessing device.
#pragma once

#include <torch/types.h>

#include <cstddef>
#include <vector>

#include "yolo/runtime/frame_view.h"

namespace yolo {

// Throws std::invalid_argument naming frame `index`, its format and size, and the problem:
// non-positive size, odd NV12/I420 size, a null plane, a stride shorter than one row.
void validate_frame(const FrameView& frame, size_t index);

// Packed formats: {(h, w, bpp)}. NV12: {Y (h, w), UV (h/2, w/2, 2)}. I420: {Y (h, w),
// U (h/2, w/2), V (h/2, w/2)}. On the CPU these are strided views of the caller's memory (no
// copy). On a GPU each plane's rows are packed into page-locked memory and copied
// asynchronously (the pinned allocator keeps the staging block until the copy has run).
std::vector<torch::Tensor> planes_on_device(const FrameView& frame, const torch::Device& device);

}  // namespace yolo
