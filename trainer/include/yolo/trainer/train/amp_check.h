// The AMP check (Ultralytics' utils/checks.py: check_amp): before training with amp=True, the
// model is run on a fixed batch in FP32 and under autocast; AMP stays on only if the two give the
// same detections. Ultralytics uses AMP on GPUs only (FP16); here a CPU that computes BF16
// natively (AVX-512 BF16, AMX) trains under BF16 autocast too, where it is faster than FP32
// (docs/benchmarks.md). The decision is a pure function so that it is tested without a GPU.
#pragma once

#include <c10/core/ScalarType.h>
#include <torch/types.h>

#include <functional>
#include <optional>
#include <string>

namespace yolo {

struct AmpDecision {
  bool enabled = false;
  std::string reason;                             // one line for the log: why AMP is on or off
  c10::ScalarType dtype = c10::ScalarType::Half;  // autocast's type when enabled
};

// The device a run trains on, as the check needs it.
struct AmpTarget {
  std::string device_type;  // "cuda" (ROCm's HIP devices too), "cpu", ...
  std::string gpu_name;     // GPUs: the name, for the list of GPUs known to fail in FP16
  std::string cpu_bf16;     // CPUs: the native BF16 units ("AVX-512 BF16"); empty when none
  std::string cpu_isa_cap;  // CPUs: oneDNN's cap that rules BF16 out ("ONEDNN_MAX_CPU_ISA=AVX2")
};

// Autocast's type on a device type: FP16 on GPUs, BF16 on CPUs.
c10::ScalarType amp_dtype(const std::string& device_type);

// Boxes of the first image, (N, 6) x1 y1 x2 y2 conf cls, from the FP32 and the autocast run.
// AMP passes when the shapes match, the autocast output is finite and every value is within
// atol + rtol * |FP32 value| (Ultralytics' allclose: atol 0.5 pixel / score units, rtol 0 for
// FP16; BF16 keeps 8 significant bits against FP16's 11, so its check adds rtol 0.01).
AmpDecision decide_amp(const torch::Tensor& fp32, const torch::Tensor& amp, double atol = 0.5,
                       double rtol = 0.0);

// The whole check for a device:
// - GPUs: names known to produce NaN under FP16 (GTX 16xx, T4xx-T2000, K40m) -> off; otherwise
//   run `detect(autocast)` both ways and decide_amp.
// - CPUs with native BF16: the same comparison under BF16 autocast; CPUs without -> off with a
//   note (BF16 is emulated there, slower than FP32).
// - Any other device -> off.
// An exception in the check turns AMP off with the message.
AmpDecision check_amp(const AmpTarget& target,
                      const std::function<torch::Tensor(bool autocast)>& detect);

}  // namespace yolo
