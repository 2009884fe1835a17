#include "class_look.h"

#include <algorithm>
#include <array>

#include "shapes.h"

namespace yolo::synth {
namespace {

// kColourClassNames' hues as RGB, apart by at least ~100 BGR units pairwise so that the shading
// and noise of a cluttered fill (a few tens of units) never carry one class into another.
constexpr std::array<std::array<int, 3>, 10> kColourClassRgb = {{
    {220, 30, 30},    // red
    {255, 140, 0},    // orange
    {240, 230, 40},   // yellow
    {30, 170, 50},    // green
    {40, 220, 230},   // cyan
    {30, 60, 220},    // blue
    {120, 40, 160},   // purple
    {230, 40, 200},   // magenta
    {245, 245, 245},  // white
    {15, 15, 15},     // black
}};
static_assert(kColourClassRgb.size() == kColourClassNames.size());
constexpr double kColourJitter = 12;

}  // namespace

ClassLook look_for_class(const SynthOptions& options, int class_id, Random& rng) {
  ClassLook look;
  if (options.cue == ClassCue::kShape) {
    look.shape = class_id;
    return look;
  }
  look.shape = rng.uniform_int(0, kShapeCount - 1);
  const auto& rgb = kColourClassRgb.at(static_cast<size_t>(class_id));
  cv::Scalar bgr;
  for (int ch = 0; ch < 3; ++ch) {
    const double v = rgb[2 - ch] + rng.uniform(-kColourJitter, kColourJitter);
    bgr[ch] = std::clamp(v, 0.0, 255.0);
  }
  look.colour = bgr;
  return look;
}

}  // namespace yolo::synth
