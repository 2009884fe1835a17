#include "backgrounds.h"

#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

namespace yolo::synth {
namespace {

constexpr double kPi = 3.14159265358979323846;

cv::Vec3f random_colour(Random& rng) {
  return {static_cast<float>(rng.uniform(0, 255)), static_cast<float>(rng.uniform(0, 255)),
          static_cast<float>(rng.uniform(0, 255))};
}

double colour_distance(const cv::Scalar& a, const cv::Scalar& b) {
  const double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
  return std::sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}

}  // namespace

Background make_background(cv::Size size, Random& rng, bool clutter) {
  if (!clutter) {
    const cv::Vec3f c = random_colour(rng) * 0.7f + cv::Vec3f::all(38);
    Background flat;
    flat.image = cv::Mat(size, CV_8UC3, cv::Scalar(c[0], c[1], c[2]));
    flat.noise_sigma = 0;
    return flat;
  }
  // Gradient between two colours, pulled towards the middle so shapes of any colour can contrast.
  const cv::Vec3f c0 = random_colour(rng) * 0.7f + cv::Vec3f::all(38);
  const cv::Vec3f c1 = random_colour(rng) * 0.7f + cv::Vec3f::all(38);
  const double t = rng.uniform(0.0, 2 * kPi);
  const double dx = std::cos(t), dy = std::sin(t);
  const double extent = std::abs(dx) * size.width + std::abs(dy) * size.height + 1;
  const double start = std::min(0.0, dx * size.width) + std::min(0.0, dy * size.height);
  cv::Mat base(size, CV_32FC3);
  for (int y = 0; y < size.height; ++y) {
    auto* row = base.ptr<cv::Vec3f>(y);
    for (int x = 0; x < size.width; ++x) {
      const float u = static_cast<float>((x * dx + y * dy - start) / extent);
      row[x] = c0 + (c1 - c0) * u;
    }
  }

  // Low-frequency blobs: a coarse random grid upsampled smoothly.
  const cv::Size grid(rng.uniform_int(3, 8), rng.uniform_int(3, 8));
  cv::Mat coarse(grid, CV_32FC3);
  const double amplitude = rng.uniform(15.0, 50.0);
  for (int y = 0; y < grid.height; ++y) {
    for (int x = 0; x < grid.width; ++x) {
      for (int ch = 0; ch < 3; ++ch) {
        coarse.at<cv::Vec3f>(y, x)[ch] = static_cast<float>(rng.uniform(-amplitude, amplitude));
      }
    }
  }
  cv::Mat blobs;
  cv::resize(coarse, blobs, size, 0, 0, cv::INTER_CUBIC);
  base += blobs;

  Background bg;
  base.convertTo(bg.image, CV_8UC3);

  // Distractor lines: straight edges that belong to no class.
  const int lines = rng.uniform_int(2, 12);
  for (int i = 0; i < lines; ++i) {
    const cv::Point p0(rng.uniform_int(-size.width / 4, size.width * 5 / 4),
                       rng.uniform_int(-size.height / 4, size.height * 5 / 4));
    const cv::Point p1(rng.uniform_int(-size.width / 4, size.width * 5 / 4),
                       rng.uniform_int(-size.height / 4, size.height * 5 / 4));
    const cv::Vec3f c = random_colour(rng);
    const int thickness = rng.uniform_int(1, 3);
    cv::line(bg.image, p0, p1, cv::Scalar(c[0], c[1], c[2]), thickness, cv::LINE_AA);
  }

  bg.noise_sigma = rng.uniform(2.0, 10.0);
  cv::Mat noisy, noise(size, CV_16SC3);
  cv::RNG(rng.next())
      .fill(noise, cv::RNG::NORMAL, cv::Scalar::all(0), cv::Scalar::all(bg.noise_sigma));
  bg.image.convertTo(noisy, CV_16SC3);
  noisy += noise;
  noisy.convertTo(bg.image, CV_8UC3);
  return bg;
}

cv::Scalar pick_contrasting_colour(const cv::Scalar& avoid,
                                   const std::vector<cv::Scalar>& also_avoid, Random& rng) {
  // Distance in BGR units; 255*sqrt(3) ≈ 441 is the maximum. Keep the best of a few draws.
  constexpr double kMinBackgroundDistance = 110;
  constexpr double kGoodShapeDistance = 70;
  constexpr int kTries = 24;
  cv::Scalar best;
  double best_score = -1;
  for (int i = 0; i < kTries; ++i) {
    const cv::Vec3f v = random_colour(rng);
    const cv::Scalar c(v[0], v[1], v[2]);
    const double d_bg = colour_distance(c, avoid);
    double d_shapes = kGoodShapeDistance;
    for (const auto& o : also_avoid) d_shapes = std::min(d_shapes, colour_distance(c, o));
    // Background contrast matters most; shape contrast counts until it is good enough.
    const double score = std::min(d_bg, kMinBackgroundDistance) * 2 + d_shapes;
    if (score > best_score) best_score = score, best = c;
    if (d_bg >= kMinBackgroundDistance && d_shapes >= kGoodShapeDistance) break;
  }
  if (colour_distance(best, avoid) < kMinBackgroundDistance / 2) {
    // Unlucky draws: each channel at the extreme farther from the background (≥ 128·√3 away).
    for (int ch = 0; ch < 3; ++ch) best[ch] = avoid[ch] < 128 ? 255 : 0;
  }
  return best;
}

}  // namespace yolo::synth
