// The box maths (core/ box_math.h on single boxes, models/ box_tensors.h on tensors) against
// hand-computed values: IoU in Ultralytics' float32 form, IoA, conversions, clipping, CIoU.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "yolo/core/box_math.h"
#include "yolo/models/geometry/box_tensors.h"

namespace {

namespace bx = yolo::boxes;

torch::Tensor t(std::vector<float> v, std::vector<int64_t> shape) {
  return torch::tensor(v).view(shape);
}

double ciou_by_hand(double ax1, double ay1, double ax2, double ay2, double bx1, double by1,
                    double bx2, double by2) {
  const double eps = 1e-7;
  const double w1 = ax2 - ax1, h1 = ay2 - ay1 + eps, w2 = bx2 - bx1, h2 = by2 - by1 + eps;
  const double iw = std::max(0.0, std::min(ax2, bx2) - std::max(ax1, bx1));
  const double ih = std::max(0.0, std::min(ay2, by2) - std::max(ay1, by1));
  const double inter = iw * ih, uni = w1 * h1 + w2 * h2 - inter + eps, iou = inter / uni;
  const double cw = std::max(ax2, bx2) - std::min(ax1, bx1);
  const double ch = std::max(ay2, by2) - std::min(ay1, by1);
  const double c2 = cw * cw + ch * ch + eps;
  const double rho2 = (std::pow(bx1 + bx2 - ax1 - ax2, 2) + std::pow(by1 + by2 - ay1 - ay2, 2)) / 4;
  const double v = 4 / (M_PI * M_PI) * std::pow(std::atan(w2 / h2) - std::atan(w1 / h1), 2);
  const double alpha = v / (v - iou + 1 + eps);
  return iou - (rho2 / c2 + v * alpha);
}

}  // namespace

// IoU in float32 with Ultralytics' 1e-7: half overlap is exactly 0.5 (the eps vanishes in float
// next to an area of 100), disjoint boxes 0, identical boxes 1; touching boxes do not overlap.
TEST(BoxMath, IouAsUltralyticsBoxIou) {
  EXPECT_EQ(bx::iou({0, 0, 10, 10}, {0, 0, 10, 5}), 0.5f);
  EXPECT_EQ(bx::iou({0, 0, 10, 10}, {20, 20, 30, 30}), 0.0f);
  EXPECT_EQ(bx::iou({0, 0, 10, 10}, {10, 0, 20, 10}), 0.0f);
  EXPECT_EQ(bx::iou({0, 0, 10, 10}, {0, 0, 10, 10}), 1.0f);
  EXPECT_FLOAT_EQ(bx::iou({0, 0, 10, 10}, {5, 0, 15, 10}), 50.0f / 150.0f);
  // The eps matters for tiny boxes: two identical 1e-4 px squares are not a full match.
  EXPECT_LT(bx::iou({0, 0, 1e-4f, 1e-4f}, {0, 0, 1e-4f, 1e-4f}), 0.5f);
  // NMS divides without it (torchvision's nms): identical tiny boxes then overlap fully.
  EXPECT_EQ(bx::iou({0, 0, 1e-4f, 1e-4f}, {0, 0, 1e-4f, 1e-4f}, 0.0f), 1.0f);
  // From kept areas: the same value.
  const bx::Xyxy a{0, 0, 10, 10}, b{5, 0, 15, 10};
  EXPECT_EQ(bx::iou_of_areas(bx::intersection(a, b), bx::area(a), bx::area(b)), bx::iou(a, b));
  // Overlap only along one axis is no overlap.
  EXPECT_EQ(bx::intersection({0, 0, 10, 10}, {5, 20, 15, 30}), 0.0f);
  EXPECT_EQ(bx::intersection({0, 0, 10, 10}, {20, 5, 30, 8}), 0.0f);
}

// IoA is the fraction of the second box inside the first (Ultralytics' bbox_ioa), not symmetric.
TEST(BoxMath, IoaIsTheFractionOfTheBoxInsideTheRegion) {
  const bx::Xyxy region{0, 0, 100, 100}, half_in{50, 0, 150, 10};
  EXPECT_FLOAT_EQ(bx::ioa(region, half_in), 0.5f);
  EXPECT_FLOAT_EQ(bx::ioa(half_in, region), 500.0f / 10000.0f);
  EXPECT_EQ(bx::ioa(region, {200, 200, 210, 210}), 0.0f);
}

TEST(BoxMath, ConversionsAndClipping) {
  const bx::Xyxy b = bx::to_xyxy({10, 20, 4, 6});
  EXPECT_EQ(b.x1, 8);
  EXPECT_EQ(b.y1, 17);
  EXPECT_EQ(b.x2, 12);
  EXPECT_EQ(b.y2, 23);
  const bx::Xywh back = bx::to_xywh(b);
  EXPECT_EQ(back.cx, 10);
  EXPECT_EQ(back.cy, 20);
  EXPECT_EQ(back.w, 4);
  EXPECT_EQ(back.h, 6);
  EXPECT_EQ(bx::area(b), 24);
  const bx::Xyxy c = bx::clip({-5, 3, 70, 90}, 64, 48);
  EXPECT_EQ(c.x1, 0);
  EXPECT_EQ(c.y1, 3);
  EXPECT_EQ(c.x2, 64);
  EXPECT_EQ(c.y2, 48);
}

// The tensor conversions work along any dimension (rows of boxes, or the head's (B, 4, A)) and
// give the scalar forms' values.
TEST(BoxTensors, ConversionsAlongAnyDimension) {
  auto xywh = t({10, 20, 4, 6, 0, 0, 2, 2}, {2, 4});
  auto xyxy = bx::xywh_to_xyxy(xywh);
  EXPECT_TRUE(xyxy.equal(t({8, 17, 12, 23, -1, -1, 1, 1}, {2, 4})));
  EXPECT_TRUE(bx::xyxy_to_xywh(xyxy).equal(xywh));
  // (1, 4, 2): coordinates along dim 1, one box per column.
  auto columns = xywh.t().unsqueeze(0);
  EXPECT_TRUE(bx::xywh_to_xyxy(columns, 1).equal(xyxy.t().unsqueeze(0)));
  EXPECT_TRUE(bx::xyxy_to_xywh(bx::xywh_to_xyxy(columns, 1), 1).equal(columns));
}

TEST(BoxTensors, CiouMatchesHandComputedValues) {
  // Same aspect, shifted: IoU 1/7, enclosing diagonal^2 18, centre distance^2 2 -> 1/7 - 1/9.
  auto a = t({0, 0, 2, 2}, {4}), b = t({1, 1, 3, 3}, {4});
  EXPECT_NEAR(yolo::boxes::ciou(a, b).item<double>(), 1.0 / 7 - 2.0 / 18, 1e-5);
  // Different aspect ratios add the v * alpha term.
  auto c = t({0, 0, 2, 1}, {4}), d = t({0, 0, 1, 2}, {4});
  EXPECT_NEAR(yolo::boxes::ciou(c, d).item<double>(), ciou_by_hand(0, 0, 2, 1, 0, 0, 1, 2), 1e-5);
  EXPECT_NEAR(yolo::boxes::ciou(c, d).item<double>(), 0.23708, 1e-4);
  // Identical boxes: 1. Disjoint far boxes: negative.
  EXPECT_NEAR(yolo::boxes::ciou(a, a).item<double>(), 1.0, 1e-5);
  EXPECT_LT(yolo::boxes::ciou(a, t({10, 10, 12, 12}, {4})).item<double>(), 0.0);
  // Broadcasts over leading dimensions.
  auto many = yolo::boxes::ciou(torch::stack({a, c}), torch::stack({b, d}));
  EXPECT_EQ(many.sizes(), (std::vector<int64_t>{2}));
}

TEST(BoxTensors, CiouGradientFlowsToPrediction) {
  auto pred = t({1, 1, 3, 3}, {4}).requires_grad_(true);
  auto loss = 1 - yolo::boxes::ciou(pred, t({0, 0, 2, 2}, {4}));
  loss.backward();
  ASSERT_TRUE(pred.grad().defined());
  // Moving the prediction towards the target lowers the loss: gradient points away.
  EXPECT_GT(pred.grad()[0].item<double>(), 0);
}
