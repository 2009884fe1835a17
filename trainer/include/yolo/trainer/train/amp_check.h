// The AMP check (Ultralytics' utils/checks.py: check_amp): before training with amp=True on a GPU,
// the model is run on a fixed batch in FP32 and under autocast; AMP stays on only if the two give
// the same detections. The decision is a pure function so that it is tested without a GPU.
#pragma once

#include <torch/types.h>

#include <functional>
#include <optional>
#include <string>

namespace yolo {

struct AmpDecision {
  bool enabled = false;
  std::string reason;  // one line for the log: why AMP is on or off
};

// Boxes of the first image, (N, 6) x1 y1 x2 y2 conf cls, from the FP32 and the autocast run.
// AMP passes when the shapes match, the autocast output is finite and every value is within
// `atol` (0.5 pixel / score units, as Ultralytics' allclose).
AmpDecision decide_amp(const torch::Tensor& fp32, const torch::Tensor& amp, double atol = 0.5);

// The whole check for a device: CPU (and any non-GPU device) -> off with a note; GPU names known
// to produce NaN under FP16 (GTX 16xx, T4xx-T2000, K40m) -> off; otherwise run `detect(x, amp)`
// for both modes and decide_amp. An exception in the check turns AMP off with the message.
AmpDecision check_amp(const std::string& device_type, const std::string& gpu_name,
                      const std::function<torch::Tensor(bool autocast)>& detect);

}  // namespace yolo
