#include "yolo/trainer/modes/checks.h"

#include <fmt/format.h>

#include <opencv2/core/version.hpp>
#include <thread>

#include "yolo/core/device.h"
#include "yolo/core/system_info.h"
#include "yolo/core/version.h"
#include "yolo/media/gst_support.h"

namespace yolo {

ChecksReport format_checks(const BackendInfo& backend, const BlasInfo& blas, int threads,
                           const std::string& opencv_version, const std::string& gstreamer_version,
                           const CpuFeatures& cpu) {
  ChecksReport r;
  auto line = [&](std::string_view key, const std::string& value) {
    r.text += fmt::format("{:<14}{}\n", key, value);
  };
  line("yolo-edge", kVersion);
  line("LibTorch", backend.cpu_part_of.empty()
                       ? fmt::format("{} ({} build)", backend.torch_version, backend.flavour_name())
                       : fmt::format("{} (CPU part only of a {} build: no GPU library linked)",
                                     backend.torch_version, backend.cpu_part_of));
  line("oneDNN", backend.onednn_version.empty() ? "not built in (slow CPU convolutions)"
                                                : backend.onednn_version);
  line("GPUs", std::to_string(backend.gpus.size()));
  for (const auto& g : backend.gpus) {
    line(fmt::format("  cuda:{}", g.index),
         g.total_memory ? fmt::format("{}, {:.1f} GiB", g.name, g.total_memory / double(1ull << 30))
                        : g.name);
  }
  line("CPU threads",
       fmt::format("{} intra-op (of {} cores)", threads, std::thread::hardware_concurrency()));
  line("BLAS", blas.path.empty() ? blas.name : fmt::format("{} ({})", blas.name, blas.path));
  line("CPU BF16", cpu.describe());
  // What the runtime (val, predict, track, the elements) will run: the Engine's defaults.
  // With the fusion the graph computes BF16 by itself; autocast is for what it cannot fuse.
  const bool fuse = backend.onednn_fused_conv;
  const std::string fused = fuse ? ", conv+SiLU fused, weights prepacked (oneDNN)" : "";
  std::string inference = cpu.native_bf16()
                              ? std::string(fuse ? "CPU: BF16" : "CPU: BF16 autocast") +
                                    ", channels-last" + fused + " (bf16=False for FP32)"
                              : "CPU: FP32, channels-last" + fused + " (no native BF16)";
  if (!backend.gpus.empty()) inference += "; GPU: FP32, channels-last (half=True for FP16)";
  line("Inference", inference);
  // What `train` will run with amp=True (the default): the AMP check can still turn it off.
  std::string training = cpu.native_bf16()
                             ? "CPU: BF16 autocast, channels-last (amp=False for FP32)"
                             : "CPU: FP32, channels-last (no native BF16)";
  if (!backend.gpus.empty()) training += "; GPU: FP16 autocast after the AMP check (amp=False)";
  line("Training", training);
  line("OpenCV", opencv_version);
  line("GStreamer", gstreamer_version);

  if (!backend.gpus.empty()) {
    r.verdict = fmt::format("Ready: {} GPU{} through {}; use device=0{}.", backend.gpus.size(),
                            backend.gpus.size() == 1 ? "" : "s", backend.flavour_name(),
                            backend.gpus.size() > 1 ? " or device=0,1 for multi-GPU" : "");
  } else if (backend.flavour != BackendInfo::Flavour::kCpu) {
    // The default build (PyTorch's CUDA wheel) on a machine without a GPU lands here too: it is
    // ready for the CPU, and the hint matters only where a GPU was expected.
    r.verdict = fmt::format(
        "Ready for CPU: this {} build of LibTorch sees no GPU, so training and inference run on "
        "the CPU (device=cpu). If this machine has a GPU, check the driver and "
        "HIP_VISIBLE_DEVICES/CUDA_VISIBLE_DEVICES.",
        backend.flavour_name());
  } else if (!backend.cpu_part_of.empty()) {
    r.verdict =
        "Ready for CPU: these programs link only LibTorch's CPU part (the yolo-edge `cpu` "
        "package); training and inference run on the CPU. For a GPU, install the package built "
        "for it (docs/deploy.md: the rocm or cuda flavour).";
  } else {
    r.verdict =
        "Ready for CPU: this LibTorch is a CPU build (no GPU support); training and inference run "
        "on the CPU. For AMD GPUs build against a ROCm LibTorch (see the README).";
  }
  if (blas.is_reference) {
    r.verdict += " Warning: reference BLAS is slow; install libopenblas0-pthread.";
  }
  r.text += r.verdict + "\n";
  return r;
}

ChecksReport run_checks() {
  return format_checks(query_backend(), query_blas(), torch_threads(), CV_VERSION,
                       media::gstreamer_version(), cpu_features());
}

}  // namespace yolo
