// detect_images step by step, timing each stage as Ultralytics' predictor reports it
// (preprocess, inference, postprocess). The steps are the runtime's own functions in the order
// detect_images calls them, so results are identical to a deployment's; keep the two in step.
#pragma once

#include <opencv2/core/mat.hpp>
#include <vector>

#include "yolo/runtime/image_detect.h"

namespace yolo::predict {

struct StageTimes {
  double preprocess_ms = 0, inference_ms = 0, postprocess_ms = 0;  // for the whole batch
};

// Detections for 8-bit BGR images of any sizes, boxes in source pixels. Batches larger than the
// model's traced batch run in chunks of it (the last one padded), as validation does.
std::vector<ImageDetections> detect_timed(Engine& engine, const std::vector<cv::Mat>& images,
                                          const NmsOptions& nms, StageTimes& times);

}  // namespace yolo::predict
