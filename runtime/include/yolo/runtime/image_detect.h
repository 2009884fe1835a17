// Detection on OpenCV images: the runtime's CPU image path (letterbox, input tensor, forward,
// NMS, boxes back to source pixels) on one Engine. The OpenCV edge of the runtime; frames from
// video buffers go through preprocess_frames() (device_preprocess.h) instead.
#pragma once

#include <torch/types.h>

#include <opencv2/core/mat.hpp>
#include <string>
#include <vector>

#include "yolo/runtime/engine.h"
#include "yolo/runtime/letterbox_geometry.h"
#include "yolo/runtime/postprocess.h"

namespace yolo {

// One source image's detections: rows x1, y1, x2, y2 (source pixels), confidence, class.
struct ImageDetections {
  torch::Tensor boxes;  // (n, 6) float32 on the CPU
  LetterboxTransform transform;
};

// Milliseconds per stage for a whole batch, as Ultralytics' predictor reports them. Preparing an
// input size the engine runs for the first time (tracing it: seconds on a CPU) is one-time work,
// as Ultralytics' warm-up is: it is in prepare_ms, never in inference_ms.
struct StageTimes {
  double preprocess_ms = 0, inference_ms = 0, postprocess_ms = 0;
  double prepare_ms = 0;
  bool prepared_new_shape = false;
};

// The line predict and val print after their speed line when input sizes were prepared:
// "Prepared 3 new input sizes in 2.4 s (once per size, ...)".
std::string shape_preparation_line(int shapes, double total_ms);

// Letterbox + forward + postprocess for 8-bit BGR images of any sizes, as one batch (run in
// chunks of the model's exported batch: Engine::forward_in_traced_batches). With `rect`, images
// of one size on an engine that runs any size (Engine::rect()) are letterboxed to their minimal
// stride-multiple rectangle, as Ultralytics' predictor does for a .pt (a batch of mixed sizes
// stays square, as there). With `times`, each stage is timed; on a GPU the inference time then
// waits for the device's queued work.
std::vector<ImageDetections> detect_images(Engine& engine, const std::vector<cv::Mat>& bgr_images,
                                           const NmsOptions& nms, StageTimes* times = nullptr,
                                           bool rect = false);

}  // namespace yolo
