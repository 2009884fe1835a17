#include "train/amp_probe.h"

#include <torch/torch.h>

#include "yolo/core/autocast_scope.h"
#include "yolo/models/detection_model.h"
#include "yolo/runtime/input_tensor.h"
#include "yolo/runtime/letterbox.h"
#include "yolo/runtime/postprocess.h"

namespace yolo {

torch::Tensor amp_probe_detections(DetectionModelImpl& model, const cv::Mat& bgr, int imgsz,
                                   const c10::Device& device, c10::ScalarType amp_dtype,
                                   bool autocast) {
  constexpr int kProbeBatch = 8;  // Ultralytics runs the check on a batch of 8
  torch::NoGradGuard no_grad;
  LetterboxOptions lb;
  lb.height = lb.width = imgsz;
  lb.stride = static_cast<int>(model.max_stride());
  const torch::Tensor x =
      images_to_tensor({letterbox(bgr, lb)}).repeat({kProbeBatch, 1, 1, 1}).to(device);
  model.eval();
  torch::Tensor out;
  {
    AutocastScope scope(device.type(), amp_dtype, autocast);
    out = model.forward(x).to(torch::kFloat);
  }
  model.train();
  const auto& head = model.detect();
  return non_max_suppression(out, NmsOptions{}, head.end2end && head.use_one2one).front();
}

}  // namespace yolo
