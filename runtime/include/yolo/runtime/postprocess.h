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

// One image's postprocessing on the CPU over raw floats, with buffers kept from image to image:
// after the first images of a stream it allocates nothing (the `yolo` element's steady state).
// non_max_suppression() runs every image through one, so both give the same rows.
//
// Ties: candidates are ordered by descending score, then by their position in the output, and
// the greedy pass keeps a box unless a kept box of its class (any class when agnostic) ahead of
// it overlaps it by IoU > iou, which is the kept set of NMS per class followed by one sort, as
// Ultralytics' class-offset NMS gives it. It stops at max_det kept boxes.
class NmsWorkspace {
 public:
  // pred: one image's output, channel-major: 4+nc rows of `anchors` floats (centre-xywh, then
  // the class scores); or with end2end, `anchors` rows of 6 (x1 y1 x2 y2 conf class). Returns
  // rows of 6 floats (x1 y1 x2 y2 conf class) by descending confidence, the caller's to change
  // until the next call. Throws std::invalid_argument for a shape that is neither.
  std::vector<float>& run(const float* pred, int64_t channels, int64_t anchors,
                          const NmsOptions& opts, bool end2end);
  // Rows in the last result.
  int64_t count() const { return static_cast<int64_t>(rows_.size() / 6); }

 private:
  struct Candidate {
    float x1, y1, x2, y2, score, area;
    int cls;
  };
  bool class_wanted(int cls, const NmsOptions& opts) const;
  // The steps of run(): end-to-end rows filtered into rows_; or candidates above conf, their
  // order by score (the best max_nms), the greedy pass into kept_.
  void filter_end2end(const float* pred, int64_t rows, const NmsOptions& opts);
  void gather_candidates(const float* pred, int64_t nc, int64_t anchors, const NmsOptions& opts);
  void order_by_score(int max_nms);
  void keep_greedy(const NmsOptions& opts);
  std::vector<Candidate> candidates_;
  std::vector<int32_t> order_, kept_;
  std::vector<float> rows_;
};

// rows: n rows of `stride` floats starting x1 y1 x2 y2, in model-input pixels -> source-frame
// pixels, clipped to the frame, in place (the arithmetic of detections_to_source()).
void rows_to_source(float* rows, int64_t n, int64_t stride, const LetterboxTransform& t);

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
