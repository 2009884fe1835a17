#include "kalman_filter.h"

#include <Eigen/LU>

namespace yolo::tracking {
namespace {

// Ultralytics' weights: position noise 1/20 and velocity noise 1/160 of the box size.
constexpr double kStdWeightPosition = 1.0 / 20;
constexpr double kStdWeightVelocity = 1.0 / 160;

StateCovariance diagonal_of_squares(const Eigen::Vector4d& a, const Eigen::Vector4d& b) {
  StateMean std_all;
  std_all << a, b;
  return std_all.array().square().matrix().asDiagonal();
}

}  // namespace

Eigen::Vector4d KalmanFilter::box_std(const StateMean& mean, double weight,
                                      double aspect_std) const {
  const double h = mean[3];
  if (encoding_ == BoxEncoding::kXYAH) return {weight * h, weight * h, aspect_std, weight * h};
  const double w = mean[2];
  return {weight * w, weight * h, weight * w, weight * h};
}

void KalmanFilter::initiate(const Measurement& z, StateMean& mean, StateCovariance& cov) const {
  mean << z, Eigen::Vector4d::Zero();
  StateMean sized;  // the std functions read the size from a state
  sized << z, Eigen::Vector4d::Zero();
  cov = diagonal_of_squares(box_std(sized, 2 * kStdWeightPosition, 1e-2),
                            box_std(sized, 10 * kStdWeightVelocity, 1e-5));
}

void KalmanFilter::predict(StateMean& mean, StateCovariance& cov) const {
  const StateCovariance motion_noise = diagonal_of_squares(box_std(mean, kStdWeightPosition, 1e-2),
                                                           box_std(mean, kStdWeightVelocity, 1e-5));
  // F = I with F(i, 4 + i) = 1: position += velocity.
  mean.head<4>() += mean.tail<4>();
  StateCovariance fc = cov;
  fc.topRows<4>() += cov.bottomRows<4>();  // F * cov
  StateCovariance fcf = fc;
  fcf.leftCols<4>() += fc.rightCols<4>();  // (F * cov) * F'
  cov = fcf + motion_noise;
}

void KalmanFilter::update(StateMean& mean, StateCovariance& cov, const Measurement& z) const {
  const Eigen::Vector4d r = box_std(mean, kStdWeightPosition, 1e-1);
  const Eigen::Matrix4d projected_cov =
      cov.topLeftCorner<4, 4>() + Eigen::Matrix4d(r.array().square().matrix().asDiagonal());
  // K = cov[:, :4] * S^-1, as Ultralytics computes it: K' = solve(S, cov[:, :4]').
  const Eigen::Matrix<double, 8, 4> gain =
      projected_cov.partialPivLu().solve(cov.leftCols<4>().transpose()).transpose();
  const Eigen::Vector4d innovation = z - mean.head<4>();
  mean += gain * innovation;
  cov -= gain * projected_cov * gain.transpose();
}

}  // namespace yolo::tracking
