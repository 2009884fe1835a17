// multi_scale: each training batch at a random size around imgsz (Ultralytics' trainer,
// preprocess_batch): the long side is drawn from [imgsz (1 - f), imgsz (1 + f)] in steps of the
// model stride and the batch is resized bilinearly; targets are normalised, so they stay as they
// are.
#pragma once

#include <torch/types.h>

#include <cstdint>

namespace yolo {

// The long side for global iteration `ni`: uniform over the stride multiples of
// [imgsz (1 - fraction), imgsz (1 + fraction) + stride) (Python's randrange, floored to the
// stride), at least one stride. The draw depends only on (seed, ni), so a resumed run repeats it.
int64_t multi_scale_size(int64_t imgsz, double fraction, int64_t stride, uint64_t seed, int64_t ni);

// `images` (B, 3, H, W) resized so that its long side is `size`, each side rounded up to a
// multiple of `stride`; returned unchanged when the long side already is `size`.
torch::Tensor resize_batch(const torch::Tensor& images, int64_t size, int64_t stride);

}  // namespace yolo
