#include "shapes.h"

#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

namespace yolo::synth {
namespace {

constexpr double kPi = 3.14159265358979323846;
// Sub-pixel bits for cv::fillPoly: outlines keep 1/16 px precision, so small shapes and slow
// motion in the video stay smooth.
constexpr int kShiftBits = 4;
constexpr double kShiftScale = 1 << kShiftBits;

using Outline = std::vector<cv::Point2d>;

Outline regular_polygon(int corners, double radius, double first_angle) {
  Outline out;
  for (int i = 0; i < corners; ++i) {
    const double t = first_angle + 2 * kPi * i / corners;
    out.emplace_back(radius * std::cos(t), radius * std::sin(t));
  }
  return out;
}

Outline ellipse_outline(double rx, double ry, double diameter_px) {
  // Enough vertices that the polygon edge stays within ~0.1 px of the true ellipse.
  const int n = std::clamp(static_cast<int>(diameter_px * 1.5), 24, 360);
  Outline out;
  for (int i = 0; i < n; ++i) {
    const double t = 2 * kPi * i / n;
    out.emplace_back(rx * std::cos(t), ry * std::sin(t));
  }
  return out;
}

// Outlines in unit coordinates (inside the unit circle, y down): the outer contour, then an
// optional hole.
std::vector<Outline> unit_outlines(const ShapeSpec& s) {
  const double a = s.aspect;
  switch (static_cast<ShapeClass>(s.class_id)) {
    case ShapeClass::kRectangle: {
      // Half-diagonal 1: half-width w, half-height a*w.
      const double w = 1.0 / std::sqrt(1.0 + a * a), h = a * w;
      return {{{-w, -h}, {w, -h}, {w, h}, {-w, h}}};
    }
    case ShapeClass::kEllipse:
      return {ellipse_outline(1.0, a, s.diameter)};
    case ShapeClass::kTriangle: {
      Outline t = regular_polygon(3, 1.0, -kPi / 2);
      for (auto& p : t) p.x *= a;  // isosceles variety
      return {t};
    }
    case ShapeClass::kPentagon: {
      Outline p = regular_polygon(5, 1.0, -kPi / 2);
      for (auto& q : p) q.y *= a;
      return {p};
    }
    case ShapeClass::kStar: {
      Outline star;
      for (int i = 0; i < 10; ++i) {
        const double r = (i % 2 == 0) ? 1.0 : s.detail;
        const double t = -kPi / 2 + kPi * i / 5;
        star.emplace_back(r * std::cos(t), a * r * std::sin(t));
      }
      return {star};
    }
    case ShapeClass::kCross: {
      const double t = s.detail, l = std::sqrt(1.0 - t * t);
      Outline c = {{t, -l}, {t, -t}, {l, -t}, {l, t},   {t, t},   {t, l},
                   {-t, l}, {-t, t}, {-l, t}, {-l, -t}, {-t, -t}, {-t, -l}};
      for (auto& p : c) p.y *= a;
      return {c};
    }
    case ShapeClass::kRing:
      return {ellipse_outline(1.0, a, s.diameter),
              ellipse_outline(s.detail, a * s.detail, s.diameter * s.detail)};
    case ShapeClass::kDiamond:
      return {{{0, -1}, {a, 0}, {0, 1}, {-a, 0}}};
    case ShapeClass::kHexagon: {
      Outline h = regular_polygon(6, 1.0, 0);
      for (auto& q : h) q.y *= a;
      return {h};
    }
    case ShapeClass::kSemicircle: {
      // The half-disc below its straight edge, centred on the circle so it stays inside it.
      Outline half = ellipse_outline(1.0, a, s.diameter);
      half.erase(
          std::remove_if(half.begin(), half.end(), [](const cv::Point2d& p) { return p.y < 0; }),
          half.end());
      half.emplace_back(-1.0, 0.0);
      return {half};
    }
  }
  return {};
}

}  // namespace

ShapeSpec sample_shape_spec(int class_id, cv::Point2d centre, double diameter, Random& rng) {
  ShapeSpec s;
  s.class_id = class_id;
  s.centre = centre;
  s.diameter = diameter;
  s.angle_deg = rng.uniform(0.0, 360.0);
  switch (static_cast<ShapeClass>(class_id)) {
    case ShapeClass::kRectangle:
      s.aspect = rng.uniform(0.35, 1.0);
      break;
    case ShapeClass::kEllipse:
      s.aspect = rng.uniform(0.45, 1.0);
      break;
    case ShapeClass::kTriangle:
      s.aspect = rng.uniform(0.7, 1.0);
      break;
    case ShapeClass::kPentagon:
      s.aspect = rng.uniform(0.85, 1.0);
      break;
    case ShapeClass::kStar:
      s.aspect = rng.uniform(0.85, 1.0);
      s.detail = rng.uniform(0.38, 0.5);  // inner radius: deep enough to read as a star
      break;
    case ShapeClass::kCross:
      s.aspect = rng.uniform(0.8, 1.0);
      s.detail = rng.uniform(0.22, 0.36);  // half arm width
      break;
    case ShapeClass::kRing:
      s.aspect = rng.uniform(0.6, 1.0);
      s.detail = rng.uniform(0.45, 0.65);  // hole radius
      break;
    case ShapeClass::kDiamond:
      // Half-width at most 0.72 of the half-height: never a rotated square (a rectangle).
      s.aspect = rng.uniform(0.45, 0.72);
      break;
    case ShapeClass::kHexagon:
      s.aspect = rng.uniform(0.85, 1.0);
      break;
    case ShapeClass::kSemicircle:
      s.aspect = rng.uniform(0.6, 1.0);
      break;
  }
  return s;
}

ShapeRaster rasterize_shape(const ShapeSpec& spec) {
  const double r = spec.diameter / 2;
  const double t = spec.angle_deg * kPi / 180.0;
  const double c = std::cos(t), sn = std::sin(t);

  std::vector<Outline> outlines = unit_outlines(spec);
  double min_x = 1e30, min_y = 1e30, max_x = -1e30, max_y = -1e30;
  for (auto& outline : outlines) {
    for (auto& p : outline) {
      // Counter-clockwise on screen (y down) is a negative mathematical angle.
      const cv::Point2d q(r * (c * p.x + sn * p.y), r * (-sn * p.x + c * p.y));
      p = spec.centre + q;
      min_x = std::min(min_x, p.x), max_x = std::max(max_x, p.x);
      min_y = std::min(min_y, p.y), max_y = std::max(max_y, p.y);
    }
  }

  ShapeRaster raster;
  raster.origin = {static_cast<int>(std::floor(min_x)) - 1,
                   static_cast<int>(std::floor(min_y)) - 1};
  const cv::Size size(static_cast<int>(std::ceil(max_x)) + 2 - raster.origin.x,
                      static_cast<int>(std::ceil(max_y)) + 2 - raster.origin.y);
  raster.mask = cv::Mat::zeros(size, CV_8UC1);

  auto to_fixed = [&](const Outline& outline) {
    std::vector<cv::Point> pts;
    pts.reserve(outline.size());
    for (const auto& p : outline) {
      pts.emplace_back(cvRound((p.x - raster.origin.x) * kShiftScale),
                       cvRound((p.y - raster.origin.y) * kShiftScale));
    }
    return pts;
  };
  std::vector<std::vector<cv::Point>> outer = {to_fixed(outlines[0])};
  cv::fillPoly(raster.mask, outer, cv::Scalar(255), cv::LINE_8, kShiftBits);
  if (outlines.size() > 1) {
    std::vector<std::vector<cv::Point>> hole = {to_fixed(outlines[1])};
    cv::fillPoly(raster.mask, hole, cv::Scalar(0), cv::LINE_8, kShiftBits);
  }
  raster.area = cv::countNonZero(raster.mask);
  return raster;
}

cv::Mat make_shape_fill(cv::Size size, const cv::Scalar& colour, double noise_sigma, Random& rng,
                        bool clutter) {
  if (!clutter) return cv::Mat(size, CV_8UC3, colour);
  // Shading: brightness changes by up to ±strength across the shape along a random direction.
  const double strength = rng.uniform(0.05, 0.18);
  const double t = rng.uniform(0.0, 2 * kPi);
  const double dx = std::cos(t), dy = std::sin(t);
  const double half_extent = 0.5 * (std::abs(dx) * size.width + std::abs(dy) * size.height) + 1;

  cv::Mat fill(size, CV_16SC3);
  for (int y = 0; y < size.height; ++y) {
    auto* row = fill.ptr<cv::Vec3s>(y);
    for (int x = 0; x < size.width; ++x) {
      const double u = ((x - size.width / 2.0) * dx + (y - size.height / 2.0) * dy) / half_extent;
      const double gain = 1.0 + strength * u;
      for (int ch = 0; ch < 3; ++ch) row[x][ch] = static_cast<short>(colour[ch] * gain);
    }
  }
  cv::Mat noise(size, CV_16SC3);
  cv::RNG(rng.next())
      .fill(noise, cv::RNG::NORMAL, cv::Scalar::all(0), cv::Scalar::all(noise_sigma));
  fill += noise;
  cv::Mat out;
  fill.convertTo(out, CV_8UC3);
  return out;
}

}  // namespace yolo::synth
