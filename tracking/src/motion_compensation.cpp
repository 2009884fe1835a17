#include "yolo/tracking/motion_compensation.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <opencv2/calib3d.hpp>
#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

namespace yolo::tracking {
namespace {

cv::Matx23d identity() {
  return cv::Matx23d(1, 0, 0, 0, 1, 0);
}

cv::Mat to_grey(const cv::Mat& frame) {
  if (frame.channels() != 3) return frame;
  cv::Mat grey;
  cv::cvtColor(frame, grey, cv::COLOR_BGR2GRAY);
  return grey;
}

// Ultralytics' keypoint mask for orb and sift: a 2 % border and every detection left out.
cv::Mat keypoint_mask(const cv::Mat& grey, const std::vector<std::array<float, 4>>& boxes,
                      int downscale) {
  const int h = grey.rows, w = grey.cols;
  cv::Mat mask = cv::Mat::zeros(grey.size(), CV_8U);
  const int top = static_cast<int>(0.02 * h), bottom = static_cast<int>(0.98 * h);
  const int left = static_cast<int>(0.02 * w), right = static_cast<int>(0.98 * w);
  mask(cv::Range(top, bottom), cv::Range(left, right)).setTo(255);
  for (const auto& b : boxes) {
    // Truncation towards zero as numpy's astype(int); boxes reaching outside are clipped.
    const int x1 = std::clamp(static_cast<int>(b[0] / downscale), 0, w);
    const int y1 = std::clamp(static_cast<int>(b[1] / downscale), 0, h);
    const int x2 = std::clamp(static_cast<int>(b[2] / downscale), 0, w);
    const int y2 = std::clamp(static_cast<int>(b[3] / downscale), 0, h);
    if (x2 > x1 && y2 > y1) mask(cv::Range(y1, y2), cv::Range(x1, x2)).setTo(0);
  }
  return mask;
}

}  // namespace

MotionCompensation::MotionCompensation(GmcMethod method, int downscale)
    : method_(method), downscale_(std::max(1, downscale)) {}

void MotionCompensation::reset() {
  initialized_ = false;
  previous_frame_.release();
  previous_points_.clear();
  previous_keypoints_.clear();
  previous_descriptors_.release();
}

cv::Matx23d MotionCompensation::apply(const cv::Mat& frame,
                                      const std::vector<std::array<float, 4>>& boxes_xyxy) {
  if (method_ == GmcMethod::kNone || frame.empty()) return identity();
  if (frame.size() != previous_size_) reset();
  previous_size_ = frame.size();
  const cv::Mat grey = to_grey(frame);
  if (method_ == GmcMethod::kEcc) return apply_ecc(grey, frame.size());
  cv::Mat small = grey;
  if (downscale_ > 1) {
    cv::resize(grey, small, cv::Size(grey.cols / downscale_, grey.rows / downscale_));
  }
  if (method_ == GmcMethod::kSparseOptFlow) return apply_sparse_optical_flow(small);
  return apply_features(small, boxes_xyxy);
}

cv::Matx23d MotionCompensation::estimate_affine(const std::vector<cv::Point2f>& from,
                                                const std::vector<cv::Point2f>& to) const {
  if (from.size() <= 4) {
    spdlog::debug("motion compensation: not enough matching points ({})", from.size());
    return identity();
  }
  const cv::Mat h = cv::estimateAffinePartial2D(from, to, cv::noArray(), cv::RANSAC);
  if (h.empty()) {
    spdlog::debug("motion compensation: affine estimation failed");
    return identity();
  }
  cv::Matx23d warp;
  h.convertTo(cv::Mat(2, 3, CV_64F, warp.val), CV_64F);
  // The estimate is in downscaled pixels: the translation scales back, the rotation does not.
  warp(0, 2) *= downscale_;
  warp(1, 2) *= downscale_;
  return warp;
}

cv::Matx23d MotionCompensation::apply_sparse_optical_flow(const cv::Mat& grey) {
  std::vector<cv::Point2f> points;
  cv::goodFeaturesToTrack(grey, points, 400, 0.01, 0, cv::noArray(), 3, false, 0.04);
  // Ultralytics starts over when the previous frame had no corners at all.
  if (!initialized_ || previous_points_.empty()) {
    previous_frame_ = grey.clone();
    previous_points_ = points;
    initialized_ = true;
    return identity();
  }
  std::vector<cv::Point2f> moved;
  std::vector<unsigned char> status;
  std::vector<float> error;
  cv::calcOpticalFlowPyrLK(previous_frame_, grey, previous_points_, moved, status, error);
  std::vector<cv::Point2f> from, to;
  for (size_t i = 0; i < status.size(); ++i) {
    if (!status[i]) continue;
    from.push_back(previous_points_[i]);
    to.push_back(moved[i]);
  }
  const cv::Matx23d warp = estimate_affine(from, to);
  previous_frame_ = grey.clone();
  previous_points_ = points;
  return warp;
}

cv::Matx23d MotionCompensation::apply_features(
    const cv::Mat& grey, const std::vector<std::array<float, 4>>& boxes_xyxy) {
  const bool orb = method_ == GmcMethod::kOrb;
  const cv::Ptr<cv::Feature2D> detector =
      orb ? cv::Ptr<cv::Feature2D>(cv::FastFeatureDetector::create(20))
          : cv::Ptr<cv::Feature2D>(cv::SIFT::create(0, 3, 0.02, 20));
  const cv::Ptr<cv::Feature2D> extractor =
      orb ? cv::Ptr<cv::Feature2D>(cv::ORB::create()) : detector;
  std::vector<cv::KeyPoint> keypoints;
  cv::Mat descriptors;
  detector->detect(grey, keypoints, keypoint_mask(grey, boxes_xyxy, downscale_));
  extractor->compute(grey, keypoints, descriptors);
  if (!initialized_) {
    previous_keypoints_ = keypoints;
    previous_descriptors_ = descriptors.clone();
    initialized_ = true;
    return identity();
  }
  std::vector<std::vector<cv::DMatch>> knn;
  if (!previous_descriptors_.empty() && !descriptors.empty()) {
    cv::BFMatcher matcher(orb ? cv::NORM_HAMMING : cv::NORM_L2);
    matcher.knnMatch(previous_descriptors_, descriptors, knn, 2);
  }
  // Ratio test, then only moves shorter than a quarter of the frame.
  const double max_dx = 0.25 * grey.cols, max_dy = 0.25 * grey.rows;
  std::vector<cv::Point2f> from, to;
  for (const auto& pair : knn) {
    if (pair.size() < 2 || !(pair[0].distance < 0.9 * pair[1].distance)) continue;
    const cv::Point2f a = previous_keypoints_[pair[0].queryIdx].pt;
    const cv::Point2f b = keypoints[pair[0].trainIdx].pt;
    if (std::abs(a.x - b.x) < max_dx && std::abs(a.y - b.y) < max_dy) {
      from.push_back(a);
      to.push_back(b);
    }
  }
  cv::Matx23d warp = identity();
  if (!from.empty()) {
    // Keep the moves within 2.5 standard deviations of the mean move on both axes.
    double mx = 0, my = 0, sx = 0, sy = 0;
    const double n = static_cast<double>(from.size());
    for (size_t i = 0; i < from.size(); ++i) {
      mx += (from[i].x - to[i].x) / n;
      my += (from[i].y - to[i].y) / n;
    }
    for (size_t i = 0; i < from.size(); ++i) {
      sx += std::pow(from[i].x - to[i].x - mx, 2) / n;
      sy += std::pow(from[i].y - to[i].y - my, 2) / n;
    }
    std::vector<cv::Point2f> kept_from, kept_to;
    for (size_t i = 0; i < from.size(); ++i) {
      if (std::abs(from[i].x - to[i].x - mx) <= 2.5 * std::sqrt(sx) &&
          std::abs(from[i].y - to[i].y - my) <= 2.5 * std::sqrt(sy)) {
        kept_from.push_back(from[i]);
        kept_to.push_back(to[i]);
      }
    }
    warp = estimate_affine(kept_from, kept_to);
  }
  previous_keypoints_ = keypoints;
  previous_descriptors_ = descriptors.clone();
  return warp;
}

cv::Matx23d MotionCompensation::apply_ecc(const cv::Mat& grey, cv::Size full_size) {
  cv::Mat small = grey;
  if (downscale_ > 1) {
    cv::Mat blurred;
    cv::GaussianBlur(grey, blurred, cv::Size(3, 3), 1.5);
    cv::resize(blurred, small, cv::Size(grey.cols / downscale_, grey.rows / downscale_));
  }
  if (!initialized_) {
    previous_frame_ = small.clone();
    initialized_ = true;
    return identity();
  }
  cv::Mat h = cv::Mat::eye(2, 3, CV_32F);
  cv::Matx23d warp = identity();
  try {
    cv::findTransformECC(
        previous_frame_, small, h, cv::MOTION_EUCLIDEAN,
        cv::TermCriteria(cv::TermCriteria::EPS | cv::TermCriteria::COUNT, 5000, 1e-6),
        cv::noArray(), 1);
    h.convertTo(cv::Mat(2, 3, CV_64F, warp.val), CV_64F);
    warp(0, 2) *= static_cast<double>(full_size.width) / small.cols;
    warp(1, 2) *= static_cast<double>(full_size.height) / small.rows;
  } catch (const cv::Exception& e) {
    spdlog::debug("motion compensation: findTransformECC failed, identity used ({})", e.what());
  }
  previous_frame_ = small.clone();
  return warp;
}

}  // namespace yolo::tracking
