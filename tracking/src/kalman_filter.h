// The constant-velocity Kalman filter of ByteTrack and BoT-SORT, as Ultralytics defines it
// (ultralytics/trackers/utils/kalman_filter.py): an 8-D state of a box and its velocity, dt = 1,
// noise that scales with the box size. Two box encodings:
//   kXYAH (ByteTrack): centre x, centre y, aspect w/h, height;
//   kXYWH (BoT-SORT):  centre x, centre y, width, height.
// Kept private to the library so that Eigen stays out of the public headers.
#pragma once

#include <Eigen/Core>

namespace yolo::tracking {

enum class BoxEncoding { kXYAH, kXYWH };

using StateMean = Eigen::Matrix<double, 8, 1>;
using StateCovariance = Eigen::Matrix<double, 8, 8>;
using Measurement = Eigen::Matrix<double, 4, 1>;

class KalmanFilter {
 public:
  explicit KalmanFilter(BoxEncoding encoding) : encoding_(encoding) {}

  BoxEncoding encoding() const { return encoding_; }

  // A new track at `z` with zero velocity and a size-scaled uncertainty.
  void initiate(const Measurement& z, StateMean& mean, StateCovariance& cov) const;
  // One frame ahead: mean <- F mean, cov <- F cov F' + Q(mean before the step).
  void predict(StateMean& mean, StateCovariance& cov) const;
  // Corrects with the measurement `z` (gain from a linear solve, as numpy.linalg.solve).
  void update(StateMean& mean, StateCovariance& cov, const Measurement& z) const;

 private:
  // Standard deviations of the four box components at this state, for a position weight `wp`
  // (or velocity weight) and the aspect's fixed value in the XYAH encoding.
  Eigen::Vector4d box_std(const StateMean& mean, double weight, double aspect_std) const;

  BoxEncoding encoding_;
};

}  // namespace yolo::tracking
