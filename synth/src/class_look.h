// What an object of a class looks like: its shape, and its colour when the colour is the class.
#pragma once

#include <optional>

#include <opencv2/core.hpp>

#include "synth_random.h"
#include "yolo/synth/synthetic_data.h"

namespace yolo::synth {

struct ClassLook {
  int shape = 0;                     // ShapeClass as int
  std::optional<cv::Scalar> colour;  // BGR; empty: any colour that contrasts with its place
};

// With ClassCue::kShape the shape is the class and nothing is drawn from `rng`, so shape-cued
// datasets stay byte-identical to those written before colour classes existed. With
// ClassCue::kColour the shape is drawn from all ten and the colour is the class's hue, each
// channel moved by up to ±12 so that a class is a colour range, not one exact value.
ClassLook look_for_class(const SynthOptions& options, int class_id, Random& rng);

}  // namespace yolo::synth
