// Training augmentation (Ultralytics' v8_transforms) and validation preprocessing, on OpenCV
// images with pixel boxes. Every transform moves the boxes with the pixels they label.
// Randomness comes only from the std::mt19937_64 passed in, so a sample is reproducible from
// (seed, epoch, index) whatever thread produces it.
#pragma once

#include <opencv2/core/mat.hpp>
#include <random>
#include <vector>

#include "yolo/runtime/letterbox.h"

namespace yolo {

// An object in pixel coordinates of its image.
struct PixelBox {
  int cls = 0;
  float x1 = 0, y1 = 0, x2 = 0, y2 = 0;
};

struct Sample {
  cv::Mat image;  // 8-bit BGR (RGB once the `bgr` draw has reversed it; see DataLoader)
  std::vector<PixelBox> boxes;
};

// The augmentation keys of config/default.yaml (Ultralytics' names and defaults).
struct AugmentParams {
  double hsv_h = 0.015, hsv_s = 0.7, hsv_v = 0.4;
  double degrees = 0.0, translate = 0.1, scale = 0.5, shear = 0.0, perspective = 0.0;
  double flipud = 0.0, fliplr = 0.5;
  double mosaic = 1.0;  // probability
  double mixup = 0.0;   // probability of blending in a second augmented sample (while mosaic is on)
  double cutmix = 0.0;  // probability of pasting a region of a second augmented sample (same)
  double bgr = 0.0;     // probability of feeding the network BGR instead of RGB
};

using Rng = std::mt19937_64;

// Resizes so that the long side is imgsz (Ultralytics' load_image; INTER_LINEAR), boxes scaled.
Sample resize_long_side(Sample s, int imgsz);

// Each random transform comes in two halves: a draw (every random number it needs, taken from the
// Rng in a fixed order) and an application that uses only the draw. The Rng overloads do both;
// the draw overloads let a test replay Ultralytics' own draws and compare outputs exactly.

// The mosaic's centre on its 2*imgsz canvas.
struct MosaicDraw {
  int xc = 0, yc = 0;
};
MosaicDraw draw_mosaic(int imgsz, Rng& rng);  // each in [imgsz/2, 1.5*imgsz), truncated

// Four samples on a 2*imgsz canvas (fill 114) around a random centre in [imgsz/2, 1.5*imgsz];
// boxes clipped to the canvas, those left without area dropped.
Sample mosaic4(const std::vector<Sample>& tiles, int imgsz, const MosaicDraw& d);
Sample mosaic4(const std::vector<Sample>& tiles, int imgsz, Rng& rng);

// Random rotation/scale/shear/translation/perspective to an output of out_w x out_h (border 114).
// The input's centre goes to the output's (plus the translation), so a 2*imgsz mosaic is cropped
// to its middle and an image smaller than the output (closed mosaic, rect batches) lands in the
// middle of it, as Ultralytics 8.4's RandomPerspective places it (no letterbox first). Boxes are
// the transformed corners' hull, clipped, and kept only if the box candidate rule holds (w, h > 2
// px, area ratio > 0.1, aspect < 100).
struct PerspectiveDraw {
  double perspective_x = 0, perspective_y = 0;  // projective terms
  double degrees = 0, scale = 1;                // rotation and scale about the centre
  double shear_x = 0, shear_y = 0;              // degrees
  double translate_x = 0.5, translate_y = 0.5;  // output centre, as a fraction of its size
  bool projective = false;                      // warpPerspective instead of warpAffine
};
PerspectiveDraw draw_perspective(const AugmentParams& p, Rng& rng);
Sample random_perspective(const Sample& s, const PerspectiveDraw& d, int out_w, int out_h);
Sample random_perspective(const Sample& s, const AugmentParams& p, int out_w, int out_h, Rng& rng);

// Hue/saturation/value gains through lookup tables (Ultralytics 8.3.79+ formula).
struct HsvDraw {
  double h = 0, s = 0, v = 0;  // U(-1, 1) times hsv_h, hsv_s, hsv_v
  bool enabled = false;        // false when all three gains are 0 (nothing drawn)
};
HsvDraw draw_hsv(const AugmentParams& p, Rng& rng);
void random_hsv(cv::Mat& bgr, const HsvDraw& d);
void random_hsv(cv::Mat& bgr, const AugmentParams& p, Rng& rng);

// Vertical (flipud) and horizontal (fliplr) flips with their probabilities.
struct FlipDraw {
  bool ud = false, lr = false;
};
FlipDraw draw_flips(const AugmentParams& p, Rng& rng);
void random_flips(Sample& s, const FlipDraw& d);
void random_flips(Sample& s, const AugmentParams& p, Rng& rng);

// Ultralytics' MixUp: a * r + b * (1 - r) with r ~ Beta(32, 32) (so near 0.5), rounded to 8 bits;
// the boxes of both. The images must have the same size.
Sample mixup(Sample a, const Sample& b, Rng& rng);

// Ultralytics' CutMix (beta 1, 3 candidate areas): draws three rectangles of area fraction
// 1 - lambda, lambda ~ U(0, 1), around random centres; keeps those no box of `a` reaches into and
// picks one at random. Pixels there come from `b`, with b's boxes that have at least 10% of their
// area inside it, clipped to it. `a` comes back unchanged when no area is free of a's boxes or
// none of b's boxes qualifies. The images must have the same size.
Sample cutmix(Sample a, const Sample& b, Rng& rng);

// Ultralytics' box_candidates: the original (w1, h1) scaled by `scale` on both sides, compared
// with the transformed (w2, h2).
bool box_candidate(float w1, float h1, float w2, float h2, float scale);

// Letterbox a sample (validation: scaleup=false, to a rect-batch shape) with its boxes.
Sample letterbox_sample(const Sample& s, const LetterboxOptions& opts,
                        LetterboxTransform* t = nullptr);

}  // namespace yolo
