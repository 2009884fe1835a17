#include "yolo/trainer/train/amp_check.h"

#include <torch/torch.h>

#include <regex>
#include <sstream>

namespace yolo {

AmpDecision decide_amp(const torch::Tensor& fp32, const torch::Tensor& amp, double atol) {
  const char* advice = "; AMP is disabled for this run (amp=False skips this check)";
  if (fp32.sizes() != amp.sizes()) {
    std::ostringstream s;
    s << "AMP check failed: FP32 found " << fp32.sizes() << " detections, autocast found "
      << amp.sizes() << advice;
    return {false, s.str()};
  }
  auto a = amp.to(torch::kFloat).cpu(), f = fp32.to(torch::kFloat).cpu();
  if (!torch::isfinite(a).all().item<bool>())
    return {false, std::string("AMP check failed: autocast produced NaN or Inf") + advice};
  if (f.numel() > 0) {
    const double diff = (a - f).abs().max().item<double>();
    if (diff > atol) {
      std::ostringstream s;
      s << "AMP check failed: autocast detections differ from FP32 by up to " << diff
        << " (tolerance " << atol << ")" << advice;
      return {false, s.str()};
    }
  }
  return {true, "AMP checks passed: autocast detections match FP32"};
}

AmpDecision check_amp(const std::string& device_type, const std::string& gpu_name,
                      const std::function<torch::Tensor(bool autocast)>& detect) {
  if (device_type != "cuda")
    return {false,
            "AMP is off: mixed precision is only used on GPUs (device type " + device_type + ")"};
  static const std::regex kBadFp16(
      "(nvidia|geforce|quadro|tesla).*?(1660|1650|1630|t400|t550|t600|t1000|t1200|t2000|k40m)",
      std::regex::icase);
  if (std::regex_search(gpu_name, kBadFp16))
    return {false, "AMP is off: " + gpu_name +
                       " is known to give NaN losses in FP16 (amp=False skips this check)"};
  try {
    torch::Tensor fp32 = detect(false);
    torch::Tensor amp = detect(true);
    return decide_amp(fp32, amp);
  } catch (const std::exception& e) {
    return {false, std::string("AMP check failed to run (") + e.what() +
                       "); AMP is disabled for this run (amp=False skips this check)"};
  }
}

}  // namespace yolo
