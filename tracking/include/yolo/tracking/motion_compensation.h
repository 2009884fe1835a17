// Global (camera) motion compensation for BoT-SORT: the 2x3 affine warp that maps the previous
// frame onto this one, estimated as Ultralytics' GMC does (ultralytics/trackers/utils/gmc.py,
// 8.4.190) on a frame downscaled by 2:
//   sparseOptFlow  goodFeaturesToTrack (400 corners, quality 0.01, distance 0) + pyramidal
//                  Lucas-Kanade + estimateAffinePartial2D with RANSAC (the default);
//   orb / sift     keypoints outside the detections and a 2 % border, ratio-tested matches
//                  filtered by their spread, then the same affine estimate;
//   ecc            findTransformECC (Euclidean) on a blurred frame;
//   none           the identity.
// Any failure (too few points, no estimate) gives the identity, as in Ultralytics. A frame of
// another size than the previous one (an image sequence of mixed sizes, a camera that changed
// resolution) starts over with the identity: there is no motion between them to estimate, and
// OpenCV's optical flow and ECC refuse frames of two sizes (Ultralytics raises there).
#pragma once

#include <opencv2/core.hpp>

#include <array>
#include <vector>

#include "yolo/tracking/tracker_config.h"

namespace yolo::tracking {

class MotionCompensation {
 public:
  explicit MotionCompensation(GmcMethod method, int downscale = 2);

  // The warp from the previous frame given to apply() to `frame` (BGR, or one grey channel);
  // the identity on the first frame. `boxes_xyxy` (frame pixels) are masked out of the keypoints
  // of orb and sift.
  cv::Matx23d apply(const cv::Mat& frame, const std::vector<std::array<float, 4>>& boxes_xyxy);

  // Forgets the previous frame (a new stream).
  void reset();

  GmcMethod method() const { return method_; }

 private:
  cv::Matx23d apply_sparse_optical_flow(const cv::Mat& grey);
  cv::Matx23d apply_features(const cv::Mat& grey,
                             const std::vector<std::array<float, 4>>& boxes_xyxy);
  cv::Matx23d apply_ecc(const cv::Mat& grey, cv::Size full_size);
  cv::Matx23d estimate_affine(const std::vector<cv::Point2f>& from,
                              const std::vector<cv::Point2f>& to) const;

  GmcMethod method_;
  int downscale_;
  bool initialized_ = false;
  cv::Size previous_size_;  // of the frame given to the last apply()
  cv::Mat previous_frame_;
  std::vector<cv::Point2f> previous_points_;
  std::vector<cv::KeyPoint> previous_keypoints_;
  cv::Mat previous_descriptors_;
};

}  // namespace yolo::tracking
