// Mirrors ultralytics/utils/loss.py (8.4.x): v8DetectionLoss, BboxLoss, DFLoss and E2ELoss.
#include "yolo/trainer/train/loss.h"

#include <torch/torch.h>

#include <algorithm>

#include "yolo/models/geometry/box_tensors.h"

namespace yolo {
namespace {

// preprocess(): (N, 6) normalised rows -> (B, M, 5) class + xyxy pixels, zero-padded.
torch::Tensor pad_targets(const torch::Tensor& targets, int64_t batch, double w, double h) {
  auto opts = targets.options();
  if (targets.size(0) == 0) return torch::zeros({batch, 0, 5}, opts);
  auto image = targets.select(1, 0).to(torch::kLong);
  auto counts = torch::bincount(image, {}, batch);
  const int64_t m = counts.max().item<int64_t>();
  auto out = torch::zeros({batch, m, 5}, opts);
  auto scale = torch::tensor({w, h, w, h}, opts);
  auto rows =
      torch::cat({targets.slice(1, 1, 2), boxes::xywh_to_xyxy(targets.slice(1, 2, 6) * scale)}, 1);
  // Slot of each row within its image: rows arrive grouped by image, but do not rely on it.
  auto image_cpu = image.cpu();
  std::vector<int64_t> next(static_cast<size_t>(batch), 0);
  std::vector<int64_t> slot(static_cast<size_t>(targets.size(0)));
  const auto* img = image_cpu.data_ptr<int64_t>();
  for (size_t i = 0; i < slot.size(); ++i) slot[i] = next[static_cast<size_t>(img[i])]++;
  auto slot_t = torch::tensor(slot, torch::dtype(torch::kLong)).to(targets.device());
  out.index_put_({image, slot_t}, rows);
  return out;
}

}  // namespace

torch::Tensor distribution_focal_loss(const torch::Tensor& logits, const torch::Tensor& target,
                                      int64_t reg_max) {
  auto t = target.clamp(0, static_cast<double>(reg_max - 1) - 0.01);
  auto left = t.to(torch::kLong), right = left + 1;
  auto wl = right.to(t.scalar_type()) - t, wr = 1 - wl;
  namespace F = torch::nn::functional;
  auto ce = [&](const torch::Tensor& cls) {
    return F::cross_entropy(logits, cls, F::CrossEntropyFuncOptions().reduction(torch::kNone));
  };
  return ce(left) * wl + ce(right) * wr;
}

torch::Tensor box_to_distances(const torch::Tensor& anchors, const torch::Tensor& boxes,
                               double max_distance) {
  auto d = torch::cat({anchors - boxes.slice(-1, 0, 2), boxes.slice(-1, 2, 4) - anchors}, -1);
  return max_distance > 0 ? d.clamp(0, max_distance - 0.01) : d;
}

DetectionLoss::DetectionLoss(int64_t num_classes, int64_t reg_max, std::vector<double> strides,
                             LossGains gains, int64_t topk, int64_t topk2)
    : nc_(num_classes),
      reg_max_(reg_max),
      gains_(gains),
      assigner_(AssignerOptions{topk, topk2, num_classes, 0.5, 6.0, 1e-9, std::move(strides)}) {}

LossOutput DetectionLoss::operator()(const nn::HeadOutput& head, const torch::Tensor& anchors,
                                     const torch::Tensor& strides,
                                     const torch::Tensor& targets) const {
  const int64_t bs = head.scores.size(0);
  auto pred_dist = head.boxes.permute({0, 2, 1}).contiguous();     // (B, A, 4*reg_max)
  auto pred_scores = head.scores.permute({0, 2, 1}).contiguous();  // (B, A, nc)
  auto dtype = pred_scores.scalar_type();
  auto anchor_points = anchors.t().to(dtype);  // (A, 2) grid units
  auto stride_tensor = strides.t().to(dtype);  // (A, 1)
  const auto& f0 = head.feats.front();
  const double s0 = stride_tensor[0].item<double>();
  const double img_h = static_cast<double>(f0.size(2)) * s0;
  const double img_w = static_cast<double>(f0.size(3)) * s0;

  auto gt = pad_targets(targets.to(pred_scores.device(), dtype), bs, img_w, img_h);
  auto gt_labels = gt.slice(2, 0, 1), gt_boxes = gt.slice(2, 1, 5);
  auto gt_mask = gt_boxes.sum(2, true).gt(0).to(dtype);

  // bbox_decode: expected distance per side (DFL) or the raw distance (reg_max 1).
  torch::Tensor dist = pred_dist;
  if (reg_max_ > 1) {
    auto proj = torch::arange(reg_max_, pred_dist.options());
    dist = pred_dist.view({bs, -1, 4, reg_max_}).softmax(3).matmul(proj);
  }
  auto pred_boxes =
      torch::cat({anchor_points - dist.slice(-1, 0, 2), anchor_points + dist.slice(-1, 2, 4)}, -1);

  Assignment a = assigner_.assign(pred_scores.detach().sigmoid(),
                                  (pred_boxes.detach() * stride_tensor).to(gt_boxes.scalar_type()),
                                  anchor_points * stride_tensor, gt_labels, gt_boxes, gt_mask);
  auto target_sum = std::max(a.scores.sum().item<double>(), 1.0);

  namespace F = torch::nn::functional;
  auto loss_cls = F::binary_cross_entropy_with_logits(
                      pred_scores, a.scores.to(dtype),
                      F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(torch::kNone))
                      .sum() /
                  target_sum;
  auto zero = torch::zeros({}, pred_scores.options());
  torch::Tensor loss_box = zero, loss_dfl = zero;
  if (a.fg_mask.any().item<bool>()) {
    // BboxLoss
    auto target_boxes = a.boxes / stride_tensor;  // grid units
    auto fg = a.fg_mask;
    auto weight = a.scores.sum(-1).index({fg}).unsqueeze(-1);  // (n, 1)
    auto iou = boxes::ciou(pred_boxes.index({fg}), target_boxes.index({fg})).unsqueeze(-1);
    loss_box = ((1.0 - iou) * weight).sum() / target_sum;
    if (reg_max_ > 1) {
      auto ltrb = box_to_distances(anchor_points, target_boxes, static_cast<double>(reg_max_ - 1));
      auto per_side = distribution_focal_loss(pred_dist.index({fg}).view({-1, reg_max_}),
                                              ltrb.index({fg}).view({-1}), reg_max_);
      loss_dfl = (per_side.view({-1, 4}).mean(-1, true) * weight).sum() / target_sum;
    } else {
      // DFL-free heads: L1 on distances in pixels normalised by the image size.
      auto norm = torch::tensor({img_w, img_h, img_w, img_h}, pred_dist.options());
      auto target_ltrb = box_to_distances(anchor_points, target_boxes, 0) * stride_tensor / norm;
      auto pred_ltrb = pred_dist * stride_tensor / norm;
      auto l1 = (pred_ltrb.index({fg}) - target_ltrb.index({fg})).abs().mean(-1, true);
      loss_dfl = (l1 * weight).sum() / target_sum;
    }
  }
  auto items = torch::stack({loss_box * gains_.box, loss_cls * gains_.cls, loss_dfl * gains_.dfl});
  return {items.sum() * static_cast<double>(bs), items.detach()};
}

EndToEndLoss::EndToEndLoss(int64_t num_classes, int64_t reg_max, std::vector<double> strides,
                           LossGains gains, int epochs)
    : one2many_(num_classes, reg_max, strides, gains, 10, 10),
      one2one_(num_classes, reg_max, strides, gains, 7, 1),
      epochs_(epochs) {}

nn::DetectTrainOutput outputs_in_fp32(const nn::DetectTrainOutput& out) {
  // Only FP16 and BF16 are widened: FP32 stays as it is, and so does float64 (the parity
  // harness trains in double).
  auto reduced = [](const torch::Tensor& t) {
    return t.scalar_type() == torch::kHalf || t.scalar_type() == torch::kBFloat16;
  };
  auto convert = [&](const nn::HeadOutput& h) {
    nn::HeadOutput f;
    f.boxes = reduced(h.boxes) ? h.boxes.to(torch::kFloat) : h.boxes;
    f.scores = reduced(h.scores) ? h.scores.to(torch::kFloat) : h.scores;
    // The features give the loss only their sizes and type (the anchor grid): detached copies.
    for (const auto& t : h.feats) f.feats.push_back(reduced(t) ? t.detach().to(torch::kFloat) : t);
    return f;
  };
  nn::DetectTrainOutput f;
  f.one2many = convert(out.one2many);
  if (out.one2one) f.one2one = convert(*out.one2one);
  return f;
}

LossOutput EndToEndLoss::operator()(const nn::DetectTrainOutput& out, const torch::Tensor& anchors,
                                    const torch::Tensor& strides,
                                    const torch::Tensor& targets) const {
  TORCH_CHECK(out.one2one.has_value(), "EndToEndLoss needs an end-to-end head");
  LossOutput many = one2many_(out.one2many, anchors, strides, targets);
  LossOutput one = one2one_(*out.one2one, anchors, strides, targets);
  return {many.total * o2m_ + one.total * (1.0 - o2m_), one.items};
}

void EndToEndLoss::set_updates(int updates) {
  updates_ = updates;
  const double progress = static_cast<double>(updates_) / std::max(epochs_ - 1, 1);
  o2m_ = std::max(1.0 - progress, 0.0) * (0.8 - 0.1) + 0.1;
}

void EndToEndLoss::update() {
  set_updates(updates_ + 1);
}

}  // namespace yolo
