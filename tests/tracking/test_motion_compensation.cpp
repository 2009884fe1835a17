// Motion compensation on a panning camera whose motion is known: every method must find the
// translation (the image content moves opposite to the camera), and the identity on a still one.
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include "yolo/tracking/motion_compensation.h"

using namespace yolo::tracking;

namespace {

// A textured scene larger than the frame, so frames can be cut from it at any pan offset.
cv::Mat scene() {
  cv::Mat noise(900, 1200, CV_8UC3);
  cv::RNG rng(3);
  rng.fill(noise, cv::RNG::UNIFORM, 0, 255);
  cv::Mat smooth;
  cv::GaussianBlur(noise, smooth, cv::Size(0, 0), 2.0);
  for (int i = 0; i < 60; ++i) {
    const cv::Point c(rng.uniform(0, 1200), rng.uniform(0, 900));
    cv::circle(smooth, c, rng.uniform(5, 40), cv::Scalar::all(rng.uniform(0, 255)), -1);
  }
  return smooth;
}

cv::Mat frame_at(const cv::Mat& s, int x, int y) {
  return s(cv::Rect(x, y, 640, 480)).clone();
}

class Methods : public ::testing::TestWithParam<GmcMethod> {};

}  // namespace

TEST_P(Methods, FindsTheCameraPan) {
  const cv::Mat s = scene();
  MotionCompensation gmc(GetParam());
  const cv::Matx23d first = gmc.apply(frame_at(s, 100, 100), {});
  EXPECT_EQ(first, cv::Matx23d(1, 0, 0, 0, 1, 0));
  // The camera moves 6 px right and 4 px down per frame: the scene moves (-6, -4) in the image.
  for (int f = 1; f <= 4; ++f) {
    const cv::Matx23d w = gmc.apply(frame_at(s, 100 + 6 * f, 100 + 4 * f), {});
    EXPECT_NEAR(w(0, 2), -6.0, 0.5) << "frame " << f;
    EXPECT_NEAR(w(1, 2), -4.0, 0.5) << "frame " << f;
    EXPECT_NEAR(w(0, 0), 1.0, 0.01);
    EXPECT_NEAR(w(0, 1), 0.0, 0.01);
  }
}

TEST_P(Methods, StillCameraIsTheIdentityAndResetForgets) {
  const cv::Mat s = scene();
  MotionCompensation gmc(GetParam());
  gmc.apply(frame_at(s, 0, 0), {});
  const cv::Matx23d still = gmc.apply(frame_at(s, 0, 0), {});
  EXPECT_NEAR(still(0, 2), 0.0, 0.05);
  EXPECT_NEAR(still(1, 2), 0.0, 0.05);
  gmc.reset();
  // After a reset the next frame is a first frame again, however far the camera moved.
  EXPECT_EQ(gmc.apply(frame_at(s, 300, 200), {}), cv::Matx23d(1, 0, 0, 0, 1, 0));
}

// A frame of another size (a sequence of mixed image sizes, a camera that changed resolution)
// starts over with the identity instead of failing in OpenCV; the next frame of that size is
// compensated again.
TEST_P(Methods, AFrameOfAnotherSizeStartsOver) {
  const cv::Mat s = scene();
  MotionCompensation gmc(GetParam());
  gmc.apply(frame_at(s, 100, 100), {});
  const cv::Mat wide = s(cv::Rect(100, 100, 800, 450)).clone();
  EXPECT_EQ(gmc.apply(wide, {}), cv::Matx23d(1, 0, 0, 0, 1, 0));
  const cv::Matx23d w = gmc.apply(s(cv::Rect(106, 104, 800, 450)).clone(), {});
  EXPECT_NEAR(w(0, 2), -6.0, 0.5);
  EXPECT_NEAR(w(1, 2), -4.0, 0.5);
}

INSTANTIATE_TEST_SUITE_P(AllMethods, Methods,
                         ::testing::Values(GmcMethod::kSparseOptFlow, GmcMethod::kOrb,
                                           GmcMethod::kSift, GmcMethod::kEcc),
                         [](const auto& p) { return std::string(to_string(p.param)); });

TEST(MotionCompensation, NoneAndBlankFramesGiveTheIdentity) {
  MotionCompensation none(GmcMethod::kNone);
  EXPECT_EQ(none.apply(cv::Mat(100, 100, CV_8UC3, cv::Scalar::all(50)), {}),
            cv::Matx23d(1, 0, 0, 0, 1, 0));
  // A flat frame has no corners: no estimate, the identity, and no crash.
  MotionCompensation flow(GmcMethod::kSparseOptFlow);
  const cv::Mat flat(200, 200, CV_8UC3, cv::Scalar::all(80));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(flow.apply(flat, {}), cv::Matx23d(1, 0, 0, 0, 1, 0));
  EXPECT_EQ(flow.apply(cv::Mat(), {}), cv::Matx23d(1, 0, 0, 0, 1, 0));
}
