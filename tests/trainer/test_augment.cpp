// Augmentation keeps boxes on the pixels they label: draw filled boxes, transform, and check
// that every box still covers its filled pixels and that no filled pixel is left unlabelled.
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include "yolo/trainer/augment.h"

using yolo::PixelBox;
using yolo::Sample;

namespace {

// Black image with white filled boxes, labelled exactly.
Sample boxes_image(int w, int h, const std::vector<cv::Rect>& rects) {
  Sample s;
  s.image = cv::Mat(h, w, CV_8UC3, cv::Scalar::all(0));
  int cls = 0;
  for (const auto& r : rects) {
    cv::rectangle(s.image, r, cv::Scalar::all(255), cv::FILLED);
    s.boxes.push_back({cls++, float(r.x), float(r.y), float(r.x + r.width), float(r.y + r.height)});
  }
  return s;
}

// Checks the label/pixel agreement; `tol` pixels of interpolation blur are allowed.
void expect_consistent(const Sample& s, float tol, const std::string& what,
                       double threshold = 135) {
  cv::Mat gray, bright;
  cv::cvtColor(s.image, gray, cv::COLOR_BGR2GRAY);
  cv::threshold(gray, bright, threshold, 255, cv::THRESH_BINARY);  // above the 114 fill
  // 1. Inside every box there are bright pixels, and their extent matches the box.
  for (const PixelBox& b : s.boxes) {
    cv::Rect r(cv::Point(int(std::floor(b.x1)), int(std::floor(b.y1))),
               cv::Point(int(std::ceil(b.x2)), int(std::ceil(b.y2))));
    r &= cv::Rect(0, 0, bright.cols, bright.rows);
    ASSERT_GT(r.area(), 0) << what;
    cv::Mat roi = bright(r);
    std::vector<cv::Point> pts;
    cv::findNonZero(roi, pts);
    ASSERT_FALSE(pts.empty()) << what << ": box without its pixels";
    cv::Rect inner = cv::boundingRect(pts) + r.tl();
    EXPECT_NEAR(inner.x, b.x1, tol) << what;
    EXPECT_NEAR(inner.y, b.y1, tol) << what;
    EXPECT_NEAR(inner.x + inner.width, b.x2, tol) << what;
    EXPECT_NEAR(inner.y + inner.height, b.y2, tol) << what;
  }
  // 2. No bright pixel lies outside all boxes (grown by tol): nothing visible is unlabelled,
  //    except slivers cut by the image border whose boxes the candidate filter dropped (as
  //    Ultralytics does): every stray blob must touch the border.
  cv::Mat covered(bright.size(), CV_8U, cv::Scalar(0));
  for (const PixelBox& b : s.boxes) {
    cv::rectangle(covered, cv::Point(int(b.x1 - tol), int(b.y1 - tol)),
                  cv::Point(int(b.x2 + tol), int(b.y2 + tol)), cv::Scalar(255), cv::FILLED);
  }
  cv::Mat stray = bright & ~covered, labels, stats, centroids;
  const int n = cv::connectedComponentsWithStats(stray, labels, stats, centroids);
  for (int i = 1; i < n; ++i) {
    const int x = stats.at<int>(i, cv::CC_STAT_LEFT), y = stats.at<int>(i, cv::CC_STAT_TOP);
    const int w = stats.at<int>(i, cv::CC_STAT_WIDTH), h = stats.at<int>(i, cv::CC_STAT_HEIGHT);
    const bool at_border = x == 0 || y == 0 || x + w == stray.cols || y + h == stray.rows;
    EXPECT_TRUE(at_border || stats.at<int>(i, cv::CC_STAT_AREA) < 4)
        << what << ": unlabelled bright blob at " << x << "," << y << " size " << w << "x" << h;
  }
}

}  // namespace

TEST(Augment, FlipsMoveBoxesWithPixels) {
  Sample s = boxes_image(64, 48, {cv::Rect(5, 10, 20, 8)});
  yolo::AugmentParams p;
  p.fliplr = 1.0;
  p.flipud = 1.0;
  yolo::Rng rng(1);
  yolo::random_flips(s, p, rng);
  EXPECT_FLOAT_EQ(s.boxes[0].x1, 64 - 25);
  EXPECT_FLOAT_EQ(s.boxes[0].y1, 48 - 18);
  expect_consistent(s, 1, "flip");
}

TEST(Augment, PerspectiveKeepsBoxesOnPixels) {
  yolo::AugmentParams p;
  p.degrees = 15;
  p.shear = 5;
  p.translate = 0.1;
  p.scale = 0.3;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    yolo::Rng rng(seed);
    Sample s = boxes_image(160, 160, {cv::Rect(30, 40, 50, 30), cv::Rect(100, 90, 20, 40)});
    Sample out = yolo::random_perspective(s, p, 160, 160, rng);
    EXPECT_EQ(out.image.cols, 160);
    expect_consistent(out, 3, "perspective seed " + std::to_string(seed));
  }
}

TEST(Augment, MosaicThenPerspectiveThenHsv) {
  yolo::AugmentParams p;  // Ultralytics' defaults: translate 0.1, scale 0.5, HSV, fliplr 0.5
  // Value gain 0.2 keeps white (>= 204) and the 114 fill (<= 137) apart for the pixel check.
  p.hsv_v = 0.2;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    yolo::Rng rng(seed);
    std::vector<Sample> tiles = {boxes_image(128, 96, {cv::Rect(10, 10, 40, 30)}),
                                 boxes_image(96, 128, {cv::Rect(50, 60, 30, 50)}),
                                 boxes_image(128, 128, {cv::Rect(60, 20, 50, 50)}),
                                 boxes_image(100, 80, {cv::Rect(20, 30, 60, 20)})};
    Sample m = yolo::mosaic4(tiles, 128, rng);
    EXPECT_EQ(m.image.cols, 256);
    EXPECT_EQ(m.boxes.size(), 4u);
    // In the raw mosaic, boxes may extend past the canvas only after clipping... none here.
    Sample out = yolo::random_perspective(m, p, 128, 128, rng);
    yolo::random_hsv(out.image, p, rng);
    yolo::random_flips(out, p, rng);
    EXPECT_EQ(out.image.rows, 128);
    expect_consistent(out, 3, "mosaic seed " + std::to_string(seed), 170);
  }
}

TEST(Augment, BoxCandidateRule) {
  EXPECT_TRUE(yolo::box_candidate(10, 10, 9, 9, 1));
  EXPECT_FALSE(yolo::box_candidate(10, 10, 2, 9, 1));        // too thin
  EXPECT_FALSE(yolo::box_candidate(100, 100, 20, 20, 1));    // area ratio 0.04
  EXPECT_TRUE(yolo::box_candidate(100, 100, 20, 20, 0.3f));  // scaled down on purpose
  // The scale applies to both sides: 400 / (10000 * 0.5^2) = 0.16 > 0.1.
  EXPECT_TRUE(yolo::box_candidate(100, 100, 20, 20, 0.5f));
  EXPECT_FALSE(yolo::box_candidate(100, 100, 20, 20, 1.5f));  // 400 / 22500
  EXPECT_FALSE(yolo::box_candidate(1000, 3, 500, 3, 1));      // aspect >= 100 after
}

TEST(Augment, LetterboxSampleAndLongSide) {
  Sample s = boxes_image(200, 100, {cv::Rect(20, 10, 40, 30)});
  Sample r = yolo::resize_long_side(s, 100);
  EXPECT_EQ(r.image.cols, 100);
  EXPECT_EQ(r.image.rows, 50);
  EXPECT_FLOAT_EQ(r.boxes[0].x2, 30);
  yolo::LetterboxOptions lb;
  lb.height = lb.width = 128;
  lb.scaleup = false;
  Sample l = yolo::letterbox_sample(r, lb);
  EXPECT_EQ(l.image.rows, 128);
  expect_consistent(l, 1, "letterbox");
}

// MixUp blends near half and half (r ~ Beta(32, 32)) and keeps the boxes of both images.
TEST(Augment, MixupBlendsImagesAndKeepsBothBoxSets) {
  yolo::Rng rng(11);
  Sample a = boxes_image(64, 48, {cv::Rect(4, 4, 10, 10)});
  Sample b = boxes_image(64, 48, {cv::Rect(30, 20, 12, 8), cv::Rect(50, 5, 6, 6)});
  a.image.setTo(cv::Scalar::all(200));
  b.image.setTo(cv::Scalar::all(100));
  std::vector<double> levels;
  for (int i = 0; i < 20; ++i) {
    Sample m = yolo::mixup(a, b, rng);
    ASSERT_EQ(m.boxes.size(), 3u);
    EXPECT_EQ(m.boxes[1].x1, 30.0f);  // b's boxes follow a's, unchanged
    double lo, hi;
    cv::minMaxLoc(m.image.reshape(1), &lo, &hi);
    EXPECT_EQ(lo, hi) << "one blend weight per image";
    EXPECT_GT(lo, 125);  // 100 + 100 r with r within ~4 standard deviations (0.062) of 0.5
    EXPECT_LT(lo, 175);
    levels.push_back(lo);
  }
  EXPECT_GT(*std::max_element(levels.begin(), levels.end()),
            *std::min_element(levels.begin(), levels.end()))
      << "the weight is drawn anew each time";
  Sample small = boxes_image(32, 32, {});
  EXPECT_THROW(yolo::mixup(a, small, rng), std::invalid_argument);
}
