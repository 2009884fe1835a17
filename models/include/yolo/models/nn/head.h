// Detection heads (Ultralytics' nn/modules/head.py): DFL and Detect, including YOLO26's
// end-to-end variant (one-to-many + one-to-one branches, top-k instead of NMS).
#pragma once

#include <algorithm>
#include <optional>

#include "yolo/models/nn/containers.h"
#include "yolo/models/nn/conv.h"

namespace yolo::nn {

// Distribution Focal Loss integral: (B, 4*c1, A) bin logits -> (B, 4, A) expected distances.
class DFLImpl : public torch::nn::Module {
 public:
  explicit DFLImpl(int64_t c1 = 16);
  torch::Tensor forward(const torch::Tensor& x);

  std::shared_ptr<Conv2dImpl> conv;  // frozen weight arange(c1)
  int64_t c1;
};

// One branch's raw outputs, concatenated over levels P3, P4, P5 (anchors row-major per level).
struct HeadOutput {
  torch::Tensor boxes;  // (B, 4*reg_max, A): ltrb distances in grid units (DFL logits if reg_max>1)
  torch::Tensor scores;              // (B, nc, A): class logits (no sigmoid)
  std::vector<torch::Tensor> feats;  // per level (B, C_l, H_l, W_l), the head's inputs
};

// Training-mode output. one2one is set for end-to-end heads; it runs on detached features so
// its loss does not reach the backbone.
struct DetectTrainOutput {
  HeadOutput one2many;
  std::optional<HeadOutput> one2one;
};

class DetectImpl : public Layer {
 public:
  // ch: input channels per level; legacy: YOLOv8's plain class branch (else depthwise branch);
  // cls_hidden: the class branch's hidden width, 0 for Ultralytics' max(ch[0], min(nc, 100)).
  DetectImpl(int64_t nc, int64_t reg_max, bool end2end, std::vector<int64_t> ch, bool legacy,
             int64_t cls_hidden = 0);
  // Ultralytics' class branch width (c3) for `nc` classes on a P3 level of `p3_channels`.
  static int64_t default_cls_hidden(int64_t p3_channels, int64_t nc) {
    return std::max<int64_t>(p3_channels, std::min<int64_t>(nc, 100));
  }

  // Inference output for the inputs of each level:
  //   not end-to-end: (B, 4+nc, A) = centre-x, centre-y, w, h (input pixels), sigmoid scores
  //   end-to-end:     (B, min(max_det, A), 6) = x1, y1, x2, y2, score, class; sorted by score
  torch::Tensor run(const std::vector<torch::Tensor>& feats) override;
  DetectTrainOutput forward_train(const std::vector<torch::Tensor>& feats);
  // The inference output run() would give, from training outputs of the same input (validation
  // during training computes the loss and the detections from one forward pass).
  torch::Tensor inference_output(const DetectTrainOutput& out);

  // Sets box biases to 2.0 and class biases to log(5 / nc / (640 / stride)^2); needs strides.
  void bias_init();
  // Removes the branch of an end-to-end head that inference does not use (fuse(), as
  // Ultralytics' Detect.fuse does): one-to-many when use_one2one, else one-to-one.
  void drop_unused_branch();
  bool has_one2many() const { return static_cast<bool>(cv2); }

  // Anchor points (2, A) in grid units (cell centres) and strides (1, A) for these feature maps;
  // cached for the last shape, device and dtype.
  std::pair<torch::Tensor, torch::Tensor> anchors_for(const std::vector<torch::Tensor>& feats);
  // Box distances (B, 4, A) in grid units -> (B, 4, A) input pixels, xywh or xyxy.
  torch::Tensor decode_boxes(const torch::Tensor& dist, const std::vector<torch::Tensor>& feats,
                             bool xywh);
  // End-to-end selection: (B, A, 4+nc) -> (B, k, 6), k = min(max_det, A).
  torch::Tensor topk_select(const torch::Tensor& preds) const;

  int64_t nc, reg_max, nl;
  int64_t cls_hidden;  // the class branch's hidden width (Ultralytics' c3)
  bool end2end, legacy;
  std::vector<double> stride;  // per level, e.g. {8, 16, 32}; set by the model builder
  int64_t max_det = 300;
  bool agnostic = false;  // end-to-end: one class per anchor
  // Inference through the one-to-one branch: Ultralytics' nms=False. By default an end-to-end
  // model, like any other, infers through the one-to-many branch and NMS (Ultralytics 8.4.190:
  // nms=None, the default, validates, predicts and exports that way).
  bool use_one2one = false;

  std::shared_ptr<LayerListImpl> cv2, cv3;                  // one-to-many: box, class
  std::shared_ptr<LayerListImpl> one2one_cv2, one2one_cv3;  // end-to-end only
  std::shared_ptr<DFLImpl> dfl;                             // null when reg_max == 1

 private:
  HeadOutput branch(const std::vector<torch::Tensor>& feats, LayerListImpl& box,
                    LayerListImpl& cls) const;
  torch::Tensor decode_output(const HeadOutput& h, bool one2one);
  std::shared_ptr<LayerListImpl> make_box_branch(const std::vector<int64_t>& ch) const;
  std::shared_ptr<LayerListImpl> make_class_branch(const std::vector<int64_t>& ch) const;

  std::vector<int64_t> anchor_key_;
  torch::Tensor anchors_, strides_;
};

}  // namespace yolo::nn
