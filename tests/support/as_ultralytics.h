// The settings under which `yolo-trainer` computes what Ultralytics computes on a CPU, for every
// test that compares our numbers or boxes with Ultralytics' own (#58). Ultralytics runs FP32 on a
// CPU: its predict and val never autocast there, and its trainer turns AMP off on a CPU. Our
// defaults are BF16 where the CPU computes it natively (AVX-512 BF16, AMX), which moves boxes by
// a fraction of a pixel and P and R at the max-F1 point by a few percent: a comparison in mixed
// precisions passes or fails with the machine and the model. What BF16 may move is tested on its
// own, against our FP32 (tests/runtime/test_reduced_precision.cpp).
#pragma once

#include <string>

namespace yolo::testing {

// Appended to `val`, `predict` and `track` command lines: FP32 inference.
inline const std::string kAsUltralyticsInference = " bf16=False";

// Appended to `train` command lines: FP32 training, and FP32 in the validation inside it.
inline const std::string kAsUltralyticsTraining = " amp=False";

}  // namespace yolo::testing
