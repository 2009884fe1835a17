#include "yolo/runtime/image_detect.h"

#include <fmt/format.h>
#include <torch/cuda.h>

#include <algorithm>
#include <chrono>

#include "yolo/core/stopwatch.h"
#include "yolo/runtime/input_tensor.h"
#include "yolo/runtime/letterbox.h"

namespace yolo {

std::string shape_preparation_line(int shapes, double total_ms) {
  return fmt::format(
      "Prepared {} new input size{} in {:.1f} s (traced once per size, like Ultralytics' "
      "warm-up: not in the speed above)",
      shapes, shapes == 1 ? "" : "s", total_ms / 1000);
}

std::vector<ImageDetections> detect_images(Engine& engine, const std::vector<cv::Mat>& images,
                                           const NmsOptions& nms, StageTimes* times, bool rect) {
  using Clock = std::chrono::steady_clock;
  if (times) *times = {};
  if (images.empty()) return {};
  const bool gpu = engine.device().is_cuda();

  auto t0 = Clock::now();
  const bool same_size = std::all_of(images.begin(), images.end(), [&](const cv::Mat& m) {
    return m.size() == images.front().size();
  });
  const LetterboxOptions lb = engine.letterbox_options(rect && same_size);
  std::vector<cv::Mat> boxed;
  std::vector<ImageDetections> out(images.size());
  for (size_t i = 0; i < images.size(); ++i) {
    boxed.push_back(letterbox(images[i], lb, &out[i].transform));
  }
  const torch::Tensor input = images_to_tensor(boxed, gpu);
  if (times) times->preprocess_ms = ms_since(t0);
  // A size seen for the first time is traced and prepared here, outside the timed inference.
  if (lb.auto_stride) {
    t0 = Clock::now();
    if (engine.prepare_shape(input.size(2), input.size(3)) && times) {
      times->prepare_ms = ms_since(t0);
      times->prepared_new_shape = true;
    }
  }

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
