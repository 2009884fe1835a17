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

// Four samples on a 2*imgsz canvas (fill 114) around a random centre in [imgsz/2, 1.5*imgsz].
Sample mosaic4(const std::vector<Sample>& tiles, int imgsz, Rng& rng);

// Random rotation/scale/shear/translation/perspective to an output of out_w x out_h (border 114);
// `border` > 0 crops that much from each side of the input first (the mosaic's -imgsz/2). Boxes
// are the transformed corners' hull, clipped, and kept only if the box candidate rule holds
// (w, h > 2 px, area ratio > 0.1, aspect < 100).
Sample random_perspective(const Sample& s, const AugmentParams& p, int out_w, int out_h, Rng& rng);

// Hue/saturation/value gains through lookup tables (Ultralytics 8.3.79+ formula).
void random_hsv(cv::Mat& bgr, const AugmentParams& p, Rng& rng);

// Vertical (flipud) and horizontal (fliplr) flips with their probabilities.
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
