// The ten shape classes: geometry, rasterisation to a mask, and the pixels that fill them.
#pragma once

#include <vector>

#include <opencv2/core.hpp>

#include "synth_random.h"
#include "yolo/synth/synthetic_data.h"

namespace yolo::synth {

enum class ShapeClass {
  kRectangle = 0,
  kEllipse,
  kTriangle,
  kPentagon,
  kStar,
  kCross,
  kRing,
  kDiamond,
  kHexagon,
  kSemicircle,
};
inline constexpr int kShapeCount = static_cast<int>(kShapeClassNames.size());

// One shape placed in an image. Every outline fits inside the circle of `diameter` around
// `centre`, so the diameter bounds the shape's extent at any rotation.
struct ShapeSpec {
  int class_id = 0;      // ShapeClass as int
  cv::Point2d centre;    // image pixels, may lie near or past the border
  double diameter = 0;   // circumscribed diameter, pixels
  double angle_deg = 0;  // rotation, degrees counter-clockwise
  double aspect = 1;     // class-specific stretch of the outline, see sample_shape_spec
  double detail = 0;     // class-specific: star inner radius, ring hole, cross arm width
};

// Draws aspect, detail and rotation for `class_id` from ranges that keep classes apart
// (a diamond never becomes a rotated square, a ring's hole stays visible).
ShapeSpec sample_shape_spec(int class_id, cv::Point2d centre, double diameter, Random& rng);

// A shape rasterised into its own bounding box, unclipped by any image.
struct ShapeRaster {
  cv::Mat mask;      // CV_8UC1, 255 inside the shape
  cv::Point origin;  // image coordinates of mask(0, 0); may be negative
  int area = 0;      // number of set pixels in mask: the shape's full area
};

ShapeRaster rasterize_shape(const ShapeSpec& spec);

// The colours of a shape: `colour` with a soft linear shading across it (as if lit from one
// side) and Gaussian noise of `noise_sigma` grey levels. CV_8UC3 of `size`.
// With `clutter` false the fill is the flat colour (no shading, no noise).
cv::Mat make_shape_fill(cv::Size size, const cv::Scalar& colour, double noise_sigma, Random& rng,
                        bool clutter = true);

}  // namespace yolo::synth
