#include "timed_detect.h"

#include <torch/cuda.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>

#include "yolo/core/stopwatch.h"
#include "yolo/runtime/input_tensor.h"
#include "yolo/runtime/letterbox.h"

namespace yolo::predict {

using Clock = std::chrono::steady_clock;

std::vector<ImageDetections> detect_timed(Engine& engine, const std::vector<cv::Mat>& images,
                                          const NmsOptions& nms, StageTimes& times) {
  times = {};
  if (images.empty()) return {};
  const ModelMetadata& meta = engine.metadata();
  const bool gpu = engine.device().is_cuda();

  auto t0 = Clock::now();
  const LetterboxOptions lb = engine.letterbox_options();
  std::vector<cv::Mat> boxed;
  std::vector<ImageDetections> out(images.size());
  for (size_t i = 0; i < images.size(); ++i)
    boxed.push_back(letterbox(images[i], lb, &out[i].transform));
  const torch::Tensor input = images_to_tensor(boxed, gpu);
  times.preprocess_ms = ms_since(t0);

  t0 = Clock::now();
  const int64_t traced = std::max<int64_t>(1, meta.batch);
  std::vector<torch::Tensor> raw;
  for (int64_t i = 0; i < input.size(0); i += traced) {
    const int64_t n = std::min(traced, input.size(0) - i);
    torch::Tensor chunk = input.slice(0, i, i + n);
    if (n < traced)  // pad to the traced batch, drop the padding's outputs
      chunk = torch::cat({chunk, chunk.slice(0, 0, 1).expand({traced - n, -1, -1, -1})});
    raw.push_back(engine.forward(chunk).slice(0, 0, n));
  }
  const torch::Tensor pred = raw.size() == 1 ? raw.front() : torch::cat(raw, 0);
  // Kernels run asynchronously on GPUs: wait, so that the time is the inference's.
  if (gpu) torch::cuda::synchronize();
  times.inference_ms = ms_since(t0);

  t0 = Clock::now();
  std::vector<torch::Tensor> dets = non_max_suppression(pred, nms, engine.end2end());
  for (size_t i = 0; i < images.size(); ++i) {
    out[i].boxes = dets[i];
    detections_to_source(out[i].boxes, out[i].transform);
  }
  times.postprocess_ms = ms_since(t0);
  return out;
}

}  // namespace yolo::predict
