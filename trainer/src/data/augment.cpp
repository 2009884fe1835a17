#include "yolo/trainer/data/augment.h"

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>
#include <stdexcept>

#include "yolo/core/box_math.h"

namespace yolo {
namespace {

constexpr int kFill = 114;

double uniform(Rng& rng, double a, double b) {
  return std::uniform_real_distribution<double>(a, b)(rng);
}

void clip_boxes(std::vector<PixelBox>& boxes, float w, float h) {
  for (auto& b : boxes) {
    b.x1 = std::clamp(b.x1, 0.f, w);
    b.x2 = std::clamp(b.x2, 0.f, w);
    b.y1 = std::clamp(b.y1, 0.f, h);
    b.y2 = std::clamp(b.y2, 0.f, h);
  }
}

}  // namespace

bool box_candidate(float w1, float h1, float w2, float h2, float scale) {
  constexpr float kWh = 2, kAr = 100, kArea = 0.1f, kEps = 1e-16f;
  const float ar = std::max(w2 / (h2 + kEps), h2 / (w2 + kEps));
  // The original box is first scaled by `scale` in both directions (Ultralytics scales the
  // instances before comparing), so its area grows by scale^2.
  return w2 > kWh && h2 > kWh && w2 * h2 / (w1 * h1 * scale * scale + kEps) > kArea && ar < kAr;
}

Sample resize_long_side(Sample s, int imgsz) {
  const int h0 = s.image.rows, w0 = s.image.cols;
  const double r = static_cast<double>(imgsz) / std::max(h0, w0);
  if (r == 1.0) return s;
  const int w = std::min(static_cast<int>(std::ceil(w0 * r)), imgsz);
  const int h = std::min(static_cast<int>(std::ceil(h0 * r)), imgsz);
  cv::Mat out;
  cv::resize(s.image, out, cv::Size(w, h), 0, 0, cv::INTER_LINEAR);
  const float sx = static_cast<float>(w) / w0, sy = static_cast<float>(h) / h0;
  for (auto& b : s.boxes) {
    b.x1 *= sx;
    b.x2 *= sx;
    b.y1 *= sy;
    b.y2 *= sy;
  }
  s.image = out;
  return s;
}

MosaicDraw draw_mosaic(int s, Rng& rng) {
  MosaicDraw d;
  d.xc = static_cast<int>(uniform(rng, s / 2.0, 1.5 * s));
  d.yc = static_cast<int>(uniform(rng, s / 2.0, 1.5 * s));
  return d;
}

Sample mosaic4(const std::vector<Sample>& tiles, int s, Rng& rng) {
  return mosaic4(tiles, s, draw_mosaic(s, rng));
}

Sample mosaic4(const std::vector<Sample>& tiles, int s, const MosaicDraw& d) {
  Sample out;
  out.image = cv::Mat(2 * s, 2 * s, CV_8UC3, cv::Scalar::all(kFill));
  const int xc = d.xc, yc = d.yc;
  for (size_t i = 0; i < tiles.size() && i < 4; ++i) {
    const cv::Mat& img = tiles[i].image;
    const int h = img.rows, w = img.cols;
    int x1a, y1a, x2a, y2a, x1b, y1b, x2b, y2b;  // a: canvas region, b: tile region
    if (i == 0) {                                // top left
      x1a = std::max(xc - w, 0), y1a = std::max(yc - h, 0), x2a = xc, y2a = yc;
      x1b = w - (x2a - x1a), y1b = h - (y2a - y1a), x2b = w, y2b = h;
    } else if (i == 1) {  // top right
      x1a = xc, y1a = std::max(yc - h, 0), x2a = std::min(xc + w, 2 * s), y2a = yc;
      x1b = 0, y1b = h - (y2a - y1a), x2b = std::min(w, x2a - x1a), y2b = h;
    } else if (i == 2) {  // bottom left
      x1a = std::max(xc - w, 0), y1a = yc, x2a = xc, y2a = std::min(2 * s, yc + h);
      x1b = w - (x2a - x1a), y1b = 0, x2b = w, y2b = std::min(y2a - y1a, h);
    } else {  // bottom right
      x1a = xc, y1a = yc, x2a = std::min(xc + w, 2 * s), y2a = std::min(2 * s, yc + h);
      x1b = 0, y1b = 0, x2b = std::min(w, x2a - x1a), y2b = std::min(y2a - y1a, h);
    }
    if (x2a > x1a && y2a > y1a) {
      img(cv::Rect(x1b, y1b, x2b - x1b, y2b - y1b))
          .copyTo(out.image(cv::Rect(x1a, y1a, x2a - x1a, y2a - y1a)));
    }
    const float padw = static_cast<float>(x1a - x1b), padh = static_cast<float>(y1a - y1b);
    for (PixelBox b : tiles[i].boxes) {
      b.x1 += padw;
      b.x2 += padw;
      b.y1 += padh;
      b.y2 += padh;
      out.boxes.push_back(b);
    }
  }
  // Boxes reaching past the canvas are clipped to it and those left without area dropped, as
  // Ultralytics' _cat_labels does. Such a box is a line on the canvas edge, and a rotation or
  // shear would otherwise turn it into a slanted box that passes the candidate rule (its original
  // area being 0).
  clip_boxes(out.boxes, 2.f * s, 2.f * s);
  out.boxes.erase(std::remove_if(out.boxes.begin(), out.boxes.end(),
                                 [](const PixelBox& b) { return !(b.x2 > b.x1 && b.y2 > b.y1); }),
                  out.boxes.end());
  return out;
}

PerspectiveDraw draw_perspective(const AugmentParams& p, Rng& rng) {
  PerspectiveDraw d;  // drawn in Ultralytics' order
  d.perspective_x = uniform(rng, -p.perspective, p.perspective);
  d.perspective_y = uniform(rng, -p.perspective, p.perspective);
  d.degrees = uniform(rng, -p.degrees, p.degrees);
  d.scale = uniform(rng, 1 - p.scale, 1 + p.scale);
  d.shear_x = uniform(rng, -p.shear, p.shear);
  d.shear_y = uniform(rng, -p.shear, p.shear);
  d.translate_x = uniform(rng, 0.5 - p.translate, 0.5 + p.translate);
  d.translate_y = uniform(rng, 0.5 - p.translate, 0.5 + p.translate);
  d.projective = p.perspective != 0;
  return d;
}

Sample random_perspective(const Sample& s, const AugmentParams& p, int out_w, int out_h, Rng& rng) {
  return random_perspective(s, draw_perspective(p, rng), out_w, out_h);
}

Sample random_perspective(const Sample& s, const PerspectiveDraw& d, int out_w, int out_h) {
  const double kPi = 3.14159265358979323846;
  // Centre, perspective, rotation+scale, shear, translation; M = T * S * R * P * C.
  cv::Matx33d C = cv::Matx33d::eye(), P = cv::Matx33d::eye(), R = cv::Matx33d::eye(),
              S = cv::Matx33d::eye(), T = cv::Matx33d::eye();
  C(0, 2) = -s.image.cols / 2.0;
  C(1, 2) = -s.image.rows / 2.0;
  P(2, 0) = d.perspective_x;
  P(2, 1) = d.perspective_y;
  cv::Mat rot = cv::getRotationMatrix2D(cv::Point2f(0, 0), d.degrees, d.scale);
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) R(r, c) = rot.at<double>(r, c);
  }
  S(0, 1) = std::tan(d.shear_x * kPi / 180);
  S(1, 0) = std::tan(d.shear_y * kPi / 180);
  T(0, 2) = d.translate_x * out_w;
  T(1, 2) = d.translate_y * out_h;
  const cv::Matx33d M = T * S * R * P * C;

  Sample out;
  const cv::Size size(out_w, out_h);
  if (d.projective) {
    cv::warpPerspective(s.image, out.image, cv::Mat(M), size, cv::INTER_LINEAR, cv::BORDER_CONSTANT,
                        cv::Scalar::all(kFill));
  } else {
    cv::Matx23d A(M(0, 0), M(0, 1), M(0, 2), M(1, 0), M(1, 1), M(1, 2));
    cv::warpAffine(s.image, out.image, cv::Mat(A), size, cv::INTER_LINEAR, cv::BORDER_CONSTANT,
                   cv::Scalar::all(kFill));
  }
  for (const PixelBox& b : s.boxes) {
    const double xs[4] = {b.x1, b.x2, b.x2, b.x1}, ys[4] = {b.y1, b.y1, b.y2, b.y2};
    double x1 = 1e18, y1 = 1e18, x2 = -1e18, y2 = -1e18;
    for (int k = 0; k < 4; ++k) {
      const cv::Vec3d q = M * cv::Vec3d(xs[k], ys[k], 1.0);
      const double w = d.projective ? q[2] : 1.0;
      x1 = std::min(x1, q[0] / w), x2 = std::max(x2, q[0] / w);
      y1 = std::min(y1, q[1] / w), y2 = std::max(y2, q[1] / w);
    }
    PixelBox n{b.cls, static_cast<float>(std::clamp(x1, 0.0, double(out_w))),
               static_cast<float>(std::clamp(y1, 0.0, double(out_h))),
               static_cast<float>(std::clamp(x2, 0.0, double(out_w))),
               static_cast<float>(std::clamp(y2, 0.0, double(out_h)))};
    if (box_candidate(b.x2 - b.x1, b.y2 - b.y1, n.x2 - n.x1, n.y2 - n.y1,
                      static_cast<float>(d.scale))) {
      out.boxes.push_back(n);
    }
  }
  return out;
}

HsvDraw draw_hsv(const AugmentParams& p, Rng& rng) {
  HsvDraw d;
  if (p.hsv_h == 0 && p.hsv_s == 0 && p.hsv_v == 0) return d;
  d.h = uniform(rng, -1, 1) * p.hsv_h;
  d.s = uniform(rng, -1, 1) * p.hsv_s;
  d.v = uniform(rng, -1, 1) * p.hsv_v;
  d.enabled = true;
  return d;
}

void random_hsv(cv::Mat& bgr, const AugmentParams& p, Rng& rng) {
  random_hsv(bgr, draw_hsv(p, rng));
}

void random_hsv(cv::Mat& bgr, const HsvDraw& d) {
  if (!d.enabled) return;
  const double rh = d.h, rs = d.s, rv = d.v;
  cv::Mat lut_h(1, 256, CV_8U), lut_s(1, 256, CV_8U), lut_v(1, 256, CV_8U);
  for (int x = 0; x < 256; ++x) {
    // OpenCV's 8-bit hue is 0..179; Python's % keeps the result non-negative.
    const int h = static_cast<int>(std::floor(x + rh * 180));
    lut_h.at<uint8_t>(x) = static_cast<uint8_t>(((h % 180) + 180) % 180);
    lut_s.at<uint8_t>(x) = static_cast<uint8_t>(std::clamp(x * (1 + rs), 0.0, 255.0));
    lut_v.at<uint8_t>(x) = static_cast<uint8_t>(std::clamp(x * (1 + rv), 0.0, 255.0));
  }
  lut_s.at<uint8_t>(0) = 0;
  cv::Mat hsv;
  cv::cvtColor(bgr, hsv, cv::COLOR_BGR2HSV);
  std::vector<cv::Mat> ch;
  cv::split(hsv, ch);
  cv::LUT(ch[0], lut_h, ch[0]);
  cv::LUT(ch[1], lut_s, ch[1]);
  cv::LUT(ch[2], lut_v, ch[2]);
  cv::merge(ch, hsv);
  cv::cvtColor(hsv, bgr, cv::COLOR_HSV2BGR);
}

FlipDraw draw_flips(const AugmentParams& p, Rng& rng) {
  FlipDraw d;
  d.ud = uniform(rng, 0, 1) < p.flipud;
  d.lr = uniform(rng, 0, 1) < p.fliplr;
  return d;
}

void random_flips(Sample& s, const AugmentParams& p, Rng& rng) {
  random_flips(s, draw_flips(p, rng));
}

void random_flips(Sample& s, const FlipDraw& d) {
  const float w = static_cast<float>(s.image.cols), h = static_cast<float>(s.image.rows);
  if (d.ud) {
    cv::flip(s.image, s.image, 0);
    for (auto& b : s.boxes) {
      const float y1 = h - b.y2, y2 = h - b.y1;
      b.y1 = y1;
      b.y2 = y2;
    }
  }
  if (d.lr) {
    cv::flip(s.image, s.image, 1);
    for (auto& b : s.boxes) {
      const float x1 = w - b.x2, x2 = w - b.x1;
      b.x1 = x1;
      b.x2 = x2;
    }
  }
}

Sample letterbox_sample(const Sample& s, const LetterboxOptions& opts, LetterboxTransform* t_out) {
  LetterboxTransform t;
  Sample out;
  out.image = letterbox(s.image, opts, &t);
  for (PixelBox b : s.boxes) {
    b.x1 = static_cast<float>(t.to_dst_x(b.x1));
    b.x2 = static_cast<float>(t.to_dst_x(b.x2));
    b.y1 = static_cast<float>(t.to_dst_y(b.y1));
    b.y2 = static_cast<float>(t.to_dst_y(b.y2));
    out.boxes.push_back(b);
  }
  if (t_out) *t_out = t;
  return out;
}

}  // namespace yolo

namespace yolo {

Sample mixup(Sample a, const Sample& b, Rng& rng) {
  if (a.image.size() != b.image.size() || a.image.type() != b.image.type())
    throw std::invalid_argument("mixup: the two images differ in size or type");
  // Beta(32, 32) as X / (X + Y) with X, Y ~ Gamma(32, 1).
  std::gamma_distribution<double> gamma(32.0, 1.0);
  const double x = gamma(rng), y = gamma(rng);
  const double r = x / (x + y);
  // A new buffer: a cv::Mat copy shares pixels, so blending in place would also change the
  // caller's image when `a` was passed by copy.
  cv::Mat blended;
  cv::addWeighted(a.image, r, b.image, 1 - r, 0.0, blended);
  a.image = blended;
  a.boxes.insert(a.boxes.end(), b.boxes.begin(), b.boxes.end());
  return a;
}

namespace {

// Ultralytics' bbox_ioa: the fraction of `box`'s area inside the rectangle (whole pixels, so
// exact in float).
float area_fraction_inside(const cv::Rect2d& area, const PixelBox& box) {
  const boxes::Xyxy region{static_cast<float>(area.x), static_cast<float>(area.y),
                           static_cast<float>(area.x + area.width),
                           static_cast<float>(area.y + area.height)};
  return boxes::ioa(region, {box.x1, box.y1, box.x2, box.y2});
}

// Ultralytics' CutMix._rand_bbox: sides sqrt(1 - lambda) of the image's, centre anywhere, clipped.
cv::Rect2d random_cut_area(int w, int h, Rng& rng) {
  const double lambda = std::uniform_real_distribution<double>(0, 1)(rng);  // Beta(1, 1)
  const double ratio = std::sqrt(1 - lambda);
  const int cut_w = static_cast<int>(w * ratio), cut_h = static_cast<int>(h * ratio);
  const int cx = std::uniform_int_distribution<int>(0, w - 1)(rng);
  const int cy = std::uniform_int_distribution<int>(0, h - 1)(rng);
  const int x1 = std::clamp(cx - cut_w / 2, 0, w), x2 = std::clamp(cx + cut_w / 2, 0, w);
  const int y1 = std::clamp(cy - cut_h / 2, 0, h), y2 = std::clamp(cy + cut_h / 2, 0, h);
  return {static_cast<double>(x1), static_cast<double>(y1), static_cast<double>(x2 - x1),
          static_cast<double>(y2 - y1)};
}

}  // namespace

Sample cutmix(Sample a, const Sample& b, Rng& rng) {
  if (a.image.size() != b.image.size() || a.image.type() != b.image.type())
    throw std::invalid_argument("cutmix: the two images differ in size or type");
  constexpr int kAreas = 3;
  constexpr float kMinInside = 0.1f;  // of a pasted box's area (0.01 is for segments)
  std::vector<cv::Rect2d> free_areas;
  for (int i = 0; i < kAreas; ++i) {
    const cv::Rect2d area = random_cut_area(a.image.cols, a.image.rows, rng);
    float covered = 0;
    for (const PixelBox& box : a.boxes) covered += area_fraction_inside(area, box);
    if (covered <= 0) free_areas.push_back(area);
  }
  if (free_areas.empty()) return a;
  const cv::Rect2d area =
      free_areas[std::uniform_int_distribution<size_t>(0, free_areas.size() - 1)(rng)];
  std::vector<PixelBox> pasted;
  for (PixelBox box : b.boxes) {
    if (area_fraction_inside(area, box) < kMinInside) continue;
    box.x1 = static_cast<float>(std::clamp<double>(box.x1, area.x, area.x + area.width));
    box.x2 = static_cast<float>(std::clamp<double>(box.x2, area.x, area.x + area.width));
    box.y1 = static_cast<float>(std::clamp<double>(box.y1, area.y, area.y + area.height));
    box.y2 = static_cast<float>(std::clamp<double>(box.y2, area.y, area.y + area.height));
    pasted.push_back(box);
  }
  if (pasted.empty()) return a;
  // A copy first: `a.image` may share its pixels with the caller's image (see mixup).
  a.image = a.image.clone();
  const cv::Rect region(area);
  b.image(region).copyTo(a.image(region));
  a.boxes.insert(a.boxes.end(), pasted.begin(), pasted.end());
  return a;
}

}  // namespace yolo
