// Occlusion and compositing: which pixels of each shape stay visible once later shapes are
// drawn over it and the image border clips it, and the final picture.
#pragma once

#include <vector>

#include <opencv2/core.hpp>

#include "shapes.h"

namespace yolo::synth {

// A shape ready to draw: where it lies and what it looks like.
struct SceneShape {
  int class_id = 0;  // the label: the shape's class or, for colour classes, its colour's
  ShapeSpec spec;
  ShapeRaster raster;
  cv::Mat fill;  // CV_8UC3 of raster.mask's size: the shape's pixels
};

// The visible part of one shape.
struct VisiblePart {
  int shape = 0;          // index into the scene's shapes
  cv::Rect roi;           // the shape's raster clipped to the image, image pixels
  cv::Mat mask;           // CV_8UC1 of roi's size: 255 where the shape is visible
  cv::Rect box;           // tight box of the visible pixels, image pixels (empty if none)
  int visible_area = 0;   // visible pixels
  double visibility = 0;  // visible_area / full raster area
};

// Shapes are stacked in vector order (later ones on top); inactive ones are left out as if
// absent. Returns one entry per active shape, in stacking order; masks are disjoint.
std::vector<VisiblePart> resolve_visibility(cv::Size image_size,
                                            const std::vector<SceneShape>& shapes,
                                            const std::vector<bool>& active);

// Copies each part's visible pixels from its shape's fill onto `image` (the background).
void composite(cv::Mat& image, const std::vector<SceneShape>& shapes,
               const std::vector<VisiblePart>& parts);

}  // namespace yolo::synth
