#include "yolo/runtime/image_detect.h"

#include "yolo/runtime/input_tensor.h"
#include "yolo/runtime/letterbox.h"

namespace yolo {

std::vector<ImageDetections> detect_images(Engine& engine, const std::vector<cv::Mat>& images,
                                           const NmsOptions& nms) {
  if (images.empty()) return {};
  const LetterboxOptions lb = engine.letterbox_options();
  std::vector<cv::Mat> boxed;
  std::vector<ImageDetections> out(images.size());
  for (size_t i = 0; i < images.size(); ++i) {
    boxed.push_back(letterbox(images[i], lb, &out[i].transform));
  }
  torch::Tensor raw = engine.forward(images_to_tensor(boxed, engine.device().is_cuda()));
  std::vector<torch::Tensor> dets = non_max_suppression(raw, nms, engine.end2end());
  for (size_t i = 0; i < images.size(); ++i) {
    out[i].boxes = dets[i];
    detections_to_source(out[i].boxes, out[i].transform);
  }
  return out;
}

}  // namespace yolo
