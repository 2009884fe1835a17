#include "yolo/runtime/image_detect.h"

#include <torch/cuda.h>

#include <chrono>

#include "yolo/core/stopwatch.h"
#include "yolo/runtime/input_tensor.h"
#include "yolo/runtime/letterbox.h"

namespace yolo {

std::vector<ImageDetections> detect_images(Engine& engine, const std::vector<cv::Mat>& images,
                                           const NmsOptions& nms, StageTimes* times) {
  using Clock = std::chrono::steady_clock;
  if (times) *times = {};
  if (images.empty()) return {};
  const bool gpu = engine.device().is_cuda();

  auto t0 = Clock::now();
  const LetterboxOptions lb = engine.letterbox_options();
  std::vector<cv::Mat> boxed;
  std::vector<ImageDetections> out(images.size());
  for (size_t i = 0; i < images.size(); ++i) {
    boxed.push_back(letterbox(images[i], lb, &out[i].transform));
  }
  const torch::Tensor input = images_to_tensor(boxed, gpu);
  if (times) times->preprocess_ms = ms_since(t0);

  t0 = Clock::now();
  const torch::Tensor raw = engine.forward_in_traced_batches(input);
  // Kernels run asynchronously on GPUs: wait, so that the time is the inference's.
  if (times && gpu) torch::cuda::synchronize();
  if (times) times->inference_ms = ms_since(t0);

  t0 = Clock::now();
  std::vector<torch::Tensor> dets = non_max_suppression(raw, nms, engine.end2end());
  for (size_t i = 0; i < images.size(); ++i) {
    out[i].boxes = dets[i];
    detections_to_source(out[i].boxes, out[i].transform);
  }
  if (times) times->postprocess_ms = ms_since(t0);
  return out;
}

}  // namespace yolo
