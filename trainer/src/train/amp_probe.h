// The detections Ultralytics' check_amp compares, made by our own inference path: one image
// letterboxed and converted as for inference (runtime/letterbox.h, input_tensor.h), a batch of 8,
// through the model in eval mode with or without autocast (in amp_dtype), then NMS.
#pragma once

#include <torch/types.h>

#include <opencv2/core/mat.hpp>

namespace yolo {

class DetectionModelImpl;

// (N, 6) x1 y1 x2 y2 conf cls of the first image. The model is put back in train mode.
torch::Tensor amp_probe_detections(DetectionModelImpl& model, const cv::Mat& bgr, int imgsz,
                                   const c10::Device& device, c10::ScalarType amp_dtype,
                                   bool autocast);

}  // namespace yolo
