#include "yolo/trainer/train/amp_check.h"

#include <torch/torch.h>

#include <regex>
#include <sstream>

namespace yolo {
namespace {

constexpr const char* kAdvice = "; AMP is disabled for this run (amp=False skips this check)";

AmpDecision compare(const std::function<torch::Tensor(bool autocast)>& detect, double rtol) {
  try {
    torch::Tensor fp32 = detect(false);
    torch::Tensor amp = detect(true);
    return decide_amp(fp32, amp, 0.5, rtol);
  } catch (const std::exception& e) {
    return {false, std::string("AMP check failed to run (") + e.what() + ")" + kAdvice};
  }
}

}  // namespace

c10::ScalarType amp_dtype(const std::string& device_type) {
  return device_type == "cpu" ? c10::ScalarType::BFloat16 : c10::ScalarType::Half;
}

AmpDecision decide_amp(const torch::Tensor& fp32, const torch::Tensor& amp, double atol,
                       double rtol) {
  if (fp32.sizes() != amp.sizes()) {
    std::ostringstream s;
    s << "AMP check failed: FP32 found " << fp32.sizes() << " detections, autocast found "
      << amp.sizes() << kAdvice;
    return {false, s.str()};
  }
  auto a = amp.to(torch::kFloat).cpu(), f = fp32.to(torch::kFloat).cpu();
  if (!torch::isfinite(a).all().item<bool>())
    return {false, std::string("AMP check failed: autocast produced NaN or Inf") + kAdvice};
  if (f.numel() > 0) {
    const auto excess = (a - f).abs() - (atol + rtol * f.abs());
    if (excess.max().item<double>() > 0) {
      std::ostringstream s;
      s << "AMP check failed: autocast detections differ from FP32 by up to "
        << (a - f).abs().max().item<double>() << " (tolerance " << atol;
      if (rtol > 0) s << " + " << rtol << " x |value|";
      s << ")" << kAdvice;
      return {false, s.str()};
    }
  }
  return {true, "AMP checks passed: autocast detections match FP32"};
}

AmpDecision check_amp(const AmpTarget& target,
                      const std::function<torch::Tensor(bool autocast)>& detect) {
  if (target.device_type == "cpu") {
    if (target.cpu_bf16.empty())
      return {
          false,
          "AMP is off: this CPU has no native BF16 (AVX-512 BF16 or AMX" +
              (target.cpu_isa_cap.empty() ? std::string()
                                          : ", or oneDNN may not use it: " + target.cpu_isa_cap) +
              "), where BF16 autocast is emulated and slower than FP32; training runs in "
              "FP32"};
    AmpDecision d = compare(detect, 0.01);
    d.dtype = c10::ScalarType::BFloat16;
    if (d.enabled)
      d.reason = "AMP checks passed: BF16 autocast on the CPU (" + target.cpu_bf16 +
                 ") matches FP32 (amp=False trains in FP32)";
    return d;
  }
  if (target.device_type != "cuda")
    return {false,
            "AMP is off: mixed precision is used on GPUs and on CPUs with native BF16 "
            "(device type " +
                target.device_type + ")"};
  static const std::regex kBadFp16(
      "(nvidia|geforce|quadro|tesla).*?(1660|1650|1630|t400|t550|t600|t1000|t1200|t2000|k40m)",
      std::regex::icase);
  if (std::regex_search(target.gpu_name, kBadFp16))
    return {false, "AMP is off: " + target.gpu_name +
                       " is known to give NaN losses in FP16 (amp=False skips this check)"};
  return compare(detect, 0.0);
}

}  // namespace yolo
