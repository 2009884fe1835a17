// Augmentation keeps boxes on the pixels they label: draw filled boxes, transform, and check
// that every box still covers its filled pixels and that no filled pixel is left unlabelled.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

#include "yolo/trainer/data/augment.h"

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

// CutMix pastes one rectangle of b into a, never over a's boxes, and adds b's boxes that are at
// least 10% inside it, clipped to it.
namespace {

// Channel values that differ between two images of the same size and type.
int differing_values(const cv::Mat& a, const cv::Mat& b) {
  cv::Mat diff = a != b;
  return cv::countNonZero(diff.reshape(1));
}

}  // namespace

TEST(Augment, CutmixPastesARegionFreeOfTheFirstImagesBoxes) {
  const cv::Rect a_box(4, 4, 12, 10);
  Sample a = boxes_image(64, 48, {a_box});
  Sample b;
  b.image = cv::Mat(48, 64, CV_8UC3, cv::Scalar::all(100));
  // A grid of 8x8 boxes over all of b, so any pasted area carries some of them.
  for (int y = 0; y < 48; y += 8)
    for (int x = 0; x < 64; x += 8) b.boxes.push_back({2, float(x), float(y), x + 8.f, y + 8.f});
  const cv::Mat a_before = a.image.clone();
  int pasted_runs = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    yolo::Rng rng(seed);
    Sample m = yolo::cutmix(a, b, rng);
    EXPECT_EQ(differing_values(a.image, a_before), 0) << "the caller's image must not change";
    ASSERT_GE(m.boxes.size(), 1u);
    EXPECT_EQ(m.boxes[0].x1, a_box.x);  // a's own box stays first and unchanged
    cv::Mat diff = m.image != a.image, changed;
    cv::reduce(diff.reshape(1, m.image.rows * m.image.cols), changed, 1, cv::REDUCE_MAX);
    changed = changed.reshape(1, m.image.rows);
    if (m.boxes.size() == 1) {
      EXPECT_EQ(cv::countNonZero(changed), 0) << "no boxes pasted, so no pixels either";
      continue;
    }
    ++pasted_runs;
    const cv::Rect region = cv::boundingRect(changed);
    // Ultralytics' _rand_bbox, replayed on the same draws: the area is one of the three.
    yolo::Rng replay(seed);
    bool drawn = false;
    for (int k = 0; k < 3; ++k) {
      const double lambda = std::uniform_real_distribution<double>(0, 1)(replay);
      const int cut_w = int(64 * std::sqrt(1 - lambda)), cut_h = int(48 * std::sqrt(1 - lambda));
      const int cx = std::uniform_int_distribution<int>(0, 63)(replay);
      const int cy = std::uniform_int_distribution<int>(0, 47)(replay);
      const int x1 = std::clamp(cx - cut_w / 2, 0, 64), x2 = std::clamp(cx + cut_w / 2, 0, 64);
      const int y1 = std::clamp(cy - cut_h / 2, 0, 48), y2 = std::clamp(cy + cut_h / 2, 0, 48);
      drawn = drawn || region == cv::Rect(x1, y1, x2 - x1, y2 - y1);
    }
    EXPECT_TRUE(drawn) << "seed " << seed << ": " << region << " is none of the drawn areas";
    EXPECT_EQ(cv::countNonZero(changed), region.area()) << "one filled rectangle";
    EXPECT_EQ((region & a_box).area(), 0) << "the pasted area must not cover a's box";
    EXPECT_EQ(differing_values(m.image(region), b.image(region)), 0) << "pixels from b";
    size_t expected = 0;
    for (const auto& bb : b.boxes) {
      const cv::Rect r(int(bb.x1), int(bb.y1), 8, 8);
      if ((r & region).area() >= 0.1 * 64) ++expected;
    }
    EXPECT_EQ(m.boxes.size() - 1, expected) << "b's boxes at least 10% inside the area";
    for (size_t i = 1; i < m.boxes.size(); ++i) {
      const auto& p = m.boxes[i];
      EXPECT_EQ(p.cls, 2);
      EXPECT_GE(p.x1, region.x);
      EXPECT_GE(p.y1, region.y);
      EXPECT_LE(p.x2, region.x + region.width);
      EXPECT_LE(p.y2, region.y + region.height);
      EXPECT_GT(p.x2, p.x1);
      EXPECT_GT(p.y2, p.y1);
    }
  }
  EXPECT_GT(pasted_runs, 10) << "most draws should find a free area";

  // An image that a's boxes cover entirely has no free area: unchanged.
  Sample full = boxes_image(64, 48, {cv::Rect(0, 0, 64, 48)});
  yolo::Rng rng(1);
  Sample same = yolo::cutmix(full, b, rng);
  EXPECT_EQ(same.boxes.size(), 1u);
  EXPECT_EQ(differing_values(same.image, full.image), 0);
  Sample small = boxes_image(32, 32, {});
  EXPECT_THROW(yolo::cutmix(a, small, rng), std::invalid_argument);
}
