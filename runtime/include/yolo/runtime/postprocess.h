// Postprocessing of raw model outputs (Ultralytics' utils/nms.py non_max_suppression), in C++
// with no torchvision:
//   - (B, 4+nc, A) outputs: confidence filter, optional multi-label, class filter, top max_nms
//     by score, NMS per class (the same kept set as Ultralytics' class-offset trick; greedy,
//     IoU > iou suppresses, as torchvision), max_det;
//   - end-to-end (B, max_det, 6) outputs: only the confidence and class filters, no IoU step.
// Rows of the result: x1, y1, x2, y2 (input pixels), confidence, class.
#pragma once

#include <torch/types.h>

#include <vector>

#include "yolo/runtime/inference_settings.h"
#include "yolo/runtime/letterbox_geometry.h"

namespace yolo {

struct NmsOptions {
  float conf = static_cast<float>(kPredictConf);  // keep scores > conf (strict, as Ultralytics)
  float iou = static_cast<float>(kNmsIou);        // suppress overlaps with IoU > iou
  int max_det = kMaxDet;                          // detections kept per image
  int max_nms = 30000;       // candidates entering NMS per image (highest scores)
  bool agnostic = false;     // one NMS across classes
  bool multi_label = false;  // one row per (box, class) above conf (validation uses true)
  std::vector<int> classes;  // keep only these class ids (empty: all)
};

// pred: (B, 4+nc, A) centre-xywh + scores, or (B, K, 6) end-to-end rows when end2end is true.
// Returns one (n_i, 6) float tensor per image on the CPU, sorted by descending confidence.
std::vector<torch::Tensor> non_max_suppression(const torch::Tensor& pred, const NmsOptions& opts,
                                               bool end2end);

// Greedy NMS: indices of kept boxes (N, 4 xyxy) by descending score. Exposed for tests.
torch::Tensor nms_indices(const torch::Tensor& boxes, const torch::Tensor& scores, float iou);

// Maps detections (n, >= 4: x1 y1 x2 y2 ...) from model-input pixels back to the source frame
// and clips them to it, in place.
void detections_to_source(torch::Tensor& dets, const LetterboxTransform& t);

}  // namespace yolo
