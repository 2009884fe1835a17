// Textured, noisy backgrounds: the clutter a detector must learn to ignore.
#pragma once

#include <vector>

#include <opencv2/core.hpp>

#include "synth_random.h"

namespace yolo::synth {

struct Background {
  cv::Mat image;           // CV_8UC3 BGR
  double noise_sigma = 0;  // sensor noise used, grey levels; shapes reuse it so they match
};

// A two-colour gradient at a random angle, plus low-frequency colour blobs, plus a few random
// straight lines (distractor edges), plus Gaussian sensor noise.
// With `clutter` false: one flat colour, no lines, no noise (noise_sigma 0).
Background make_background(cv::Size size, Random& rng, bool clutter = true);

// A random colour that stands out from `avoid` (the local background mean) and, as far as
// possible, from `also_avoid` (colours of shapes it may overlap), so occlusion edges stay
// visible. BGR, 0..255.
cv::Scalar pick_contrasting_colour(const cv::Scalar& avoid,
                                   const std::vector<cv::Scalar>& also_avoid, Random& rng);

}  // namespace yolo::synth
