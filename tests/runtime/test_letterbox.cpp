// Letterbox geometry against hand-computed cases (including odd sizes and Python's rounding),
// pixels, the inverse box mapping, and the input tensor layout.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <opencv2/imgproc.hpp>

#include "yolo/runtime/input_tensor.h"
#include "yolo/runtime/letterbox.h"

using yolo::compute_letterbox;
using yolo::LetterboxOptions;

namespace {

LetterboxOptions target(int h, int w) {
  LetterboxOptions o;
  o.height = h;
  o.width = w;
  return o;
}

}  // namespace

TEST(Letterbox, LandscapeVgaTo640) {
  auto t = compute_letterbox(480, 640, target(640, 640));
  EXPECT_DOUBLE_EQ(t.gain_x, 1.0);
  EXPECT_EQ(t.resized_width, 640);
  EXPECT_EQ(t.resized_height, 480);
  EXPECT_EQ(t.pad_top, 80);
  EXPECT_EQ(t.pad_bottom, 80);
  EXPECT_EQ(t.pad_left, 0);
  EXPECT_EQ(t.out_height, 640);
}

TEST(Letterbox, OddSourceSize) {
  // r = min(640/333, 640/500) = 1.28; h = round(426.24) = 426; dh = 214 -> 107 / 107.
  auto t = compute_letterbox(333, 500, target(640, 640));
  EXPECT_DOUBLE_EQ(t.gain_x, 1.28);
  EXPECT_DOUBLE_EQ(t.gain_y, 1.28);
  EXPECT_EQ(t.resized_width, 640);
  EXPECT_EQ(t.resized_height, 426);
  // Boxes go back with what each axis underwent (Ultralytics' scale_boxes when predicting):
  // the resized image's bottom edge is the source's.
  EXPECT_DOUBLE_EQ(t.back_gain_x, 1.28);
  EXPECT_DOUBLE_EQ(t.back_gain_y, 426.0 / 333.0);
  EXPECT_DOUBLE_EQ(t.to_src_y(t.pad_top + 426), 333.0);
  EXPECT_EQ(t.pad_top, 107);
  EXPECT_EQ(t.pad_bottom, 107);
}

TEST(Letterbox, OddPaddingGoesBottomRight) {
  // r = 0.32; h = round(28.8) = 29; dh = 35 -> 17.5: top round(17.4) = 17, bottom round(17.6) = 18.
  auto t = compute_letterbox(90, 200, target(64, 64));
  EXPECT_EQ(t.resized_height, 29);
  EXPECT_EQ(t.pad_top, 17);
  EXPECT_EQ(t.pad_bottom, 18);
  // Portrait: the odd pixel goes right.
  t = compute_letterbox(200, 90, target(64, 64));
  EXPECT_EQ(t.pad_left, 17);
  EXPECT_EQ(t.pad_right, 18);
}

TEST(Letterbox, PythonRoundsHalfToEven) {
  // r = min(10/1, 10/4) = 2.5; h = round(2.5) = 2 in Python (std::round would give 3).
  auto t = compute_letterbox(1, 4, target(10, 10));
  EXPECT_EQ(t.resized_height, 2);
  EXPECT_EQ(t.pad_top, 4);
  EXPECT_EQ(t.pad_bottom, 4);
}

TEST(Letterbox, NoScaleupAutoAndScaleFill) {
  LetterboxOptions o = target(640, 640);
  o.scaleup = false;
  auto t = compute_letterbox(100, 100, o);
  EXPECT_EQ(t.resized_width, 100);
  EXPECT_EQ(t.pad_left, 270);
  EXPECT_EQ(t.pad_right, 270);

  o = target(640, 640);
  o.auto_stride = true;
  t = compute_letterbox(500, 640, o);  // dh = 140 mod 32 = 12 -> 6 / 6
  EXPECT_EQ(t.out_height, 512);
  EXPECT_EQ(t.out_width, 640);
  EXPECT_EQ(t.pad_top, 6);

  o = target(320, 320);
  o.scale_fill = true;
  t = compute_letterbox(100, 200, o);
  EXPECT_EQ(t.out_width, 320);
  EXPECT_EQ(t.out_height, 320);
  EXPECT_DOUBLE_EQ(t.gain_x, 1.6);
  EXPECT_DOUBLE_EQ(t.gain_y, 3.2);
  EXPECT_EQ(t.pad_top + t.pad_left, 0);
}

TEST(Letterbox, PixelsAndInverseMapping) {
  cv::Mat img(90, 200, CV_8UC3, cv::Scalar(10, 20, 30));
  cv::rectangle(img, cv::Rect(50, 20, 100, 40), cv::Scalar(255, 255, 255), cv::FILLED);
  yolo::LetterboxTransform t;
  cv::Mat out = yolo::letterbox(img, target(64, 64), &t);
  ASSERT_EQ(out.rows, 64);
  ASSERT_EQ(out.cols, 64);
  EXPECT_EQ(out.at<cv::Vec3b>(0, 0), cv::Vec3b(114, 114, 114));
  EXPECT_EQ(out.at<cv::Vec3b>(63, 63), cv::Vec3b(114, 114, 114));
  // The rectangle's centre (100, 40) lands at (100*0.32, 40*0.32 + 17) = (32, 29.8).
  EXPECT_EQ(out.at<cv::Vec3b>(30, 32), cv::Vec3b(255, 255, 255));
  EXPECT_NEAR(t.to_dst_y(40), 29.8, 1e-9);

  // Back with what each axis underwent: x by 64/200 = 0.32, y by 29/90 (the 90 rows became 29),
  // as Ultralytics' scale_boxes maps predictions.
  const float y1 = 17 + 20 * 29.f / 90, y2 = 17 + 60 * 29.f / 90;
  cv::Mat boxes = (cv::Mat_<float>(2, 5) << 16, y1, 48, y2, 0.9f,  //
                   -5, 0, 70, 64, 0.5f);
  yolo::boxes_to_source(boxes, t);
  EXPECT_NEAR(boxes.at<float>(0, 0), 50, 1e-3);
  EXPECT_NEAR(boxes.at<float>(0, 1), 20, 1e-3);
  EXPECT_NEAR(boxes.at<float>(0, 2), 150, 1e-3);
  EXPECT_NEAR(boxes.at<float>(0, 3), 60, 1e-3);
  EXPECT_FLOAT_EQ(boxes.at<float>(0, 4), 0.9f);  // extra columns untouched
  // Clipped to the source image.
  EXPECT_FLOAT_EQ(boxes.at<float>(1, 0), 0);
  EXPECT_FLOAT_EQ(boxes.at<float>(1, 1), 0);
  EXPECT_FLOAT_EQ(boxes.at<float>(1, 2), 200);
  EXPECT_FLOAT_EQ(boxes.at<float>(1, 3), 90);
}

TEST(Letterbox, BadInputs) {
  EXPECT_THROW(yolo::letterbox(cv::Mat(), target(64, 64)), std::invalid_argument);
  EXPECT_THROW(compute_letterbox(0, 10, target(64, 64)), std::invalid_argument);
  EXPECT_THROW(yolo::letterbox(cv::Mat(8, 8, CV_32FC3), target(64, 64)), std::invalid_argument);
}

TEST(InputTensor, RgbNchwScaled) {
  cv::Mat a(4, 6, CV_8UC3, cv::Scalar(255, 0, 51));  // B=255, G=0, R=51
  cv::Mat big(10, 10, CV_8UC3, cv::Scalar(0, 255, 0));
  cv::Mat b = big(cv::Rect(2, 2, 6, 4));  // a non-contiguous view
  torch::Tensor x = yolo::images_to_tensor({a, b});
  EXPECT_EQ(x.sizes(), (std::vector<int64_t>{2, 3, 4, 6}));
  EXPECT_EQ(x.scalar_type(), torch::kFloat);
  EXPECT_NEAR(x[0][0][1][2].item<float>(), 0.2f, 1e-6);  // R
  EXPECT_NEAR(x[0][2][3][5].item<float>(), 1.0f, 1e-6);  // B
  EXPECT_NEAR(x[1][1][0][0].item<float>(), 1.0f, 1e-6);  // G of the view
  EXPECT_THROW(yolo::images_to_tensor({a, big}), std::invalid_argument);

  // Every byte value and channel: the same floats, bit for bit, as torch's own chain (flip to
  // RGB, NCHW, float, divide by 255), which the trainer's tensors were made with before.
  cv::Mat all(16, 48, CV_8UC3);
  for (int i = 0; i < 16 * 48 * 3; ++i) all.data[i] = static_cast<uint8_t>((i * 7) % 256);
  const torch::Tensor hwc = torch::from_blob(all.data, {1, 16, 48, 3}, torch::kUInt8).clone();
  const torch::Tensor chain =
      hwc.flip({3}).permute({0, 3, 1, 2}).to(torch::kFloat).div_(255.0).contiguous();
  EXPECT_TRUE(torch::equal(yolo::images_to_tensor({all}), chain));
}
