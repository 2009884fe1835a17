#include "chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace yolo::chart {
namespace {

// Offset of a box of length `extent` from an anchor for the given alignment.
int aligned(int anchor, int extent, Align a) {
  switch (a) {
    case Align::kStart:
      return anchor;
    case Align::kCentre:
      return anchor - extent / 2;
    case Align::kEnd:
      return anchor - extent;
  }
  return anchor;
}

// Longest legend label in characters; longer ones are cut (names can be long sentences).
constexpr std::size_t kMaxLegendChars = 32;

std::string shorten(const std::string& s) {
  return s.size() <= kMaxLegendChars ? s : s.substr(0, kMaxLegendChars - 2) + "..";
}

// Curves, clipped to the axes as matplotlib does: drawn on a copy, of which only the axes'
// area is copied back.
void draw_curves(cv::Mat& img, const cv::Rect& area, const std::vector<Series>& series) {
  const auto to_px = [&](double x, double y) {
    // 4 fractional bits for cv::polylines' shift.
    return cv::Point(static_cast<int>(std::lround((area.x + x * area.width) * 16)),
                     static_cast<int>(std::lround((area.y + (1 - y) * area.height) * 16)));
  };
  cv::Mat layer = img.clone();
  for (const Series& line : series) {
    std::vector<cv::Point> pts;
    const std::size_t n = std::min(line.x.size(), line.y.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (std::isfinite(line.x[i]) && std::isfinite(line.y[i])) {
        pts.push_back(to_px(line.x[i], line.y[i]));
      }
    }
    if (pts.size() > 1) {
      cv::polylines(layer, pts, false, line.colour, line.thickness, cv::LINE_AA, 4);
    }
  }
  layer(area).copyTo(img(area));
}

struct LegendStyle {
  double text_scale;
  int thin, bold, sample, pad;  // line widths, the sample line's length, the inner margin
};

// A framed box at `box`'s top-left, `box.width` wide and as high as its entries: a sample line
// and the label of each.
void draw_legend(cv::Mat& img, cv::Rect box, const std::vector<const Series*>& entries,
                 const LegendStyle& st) {
  const int row =
      static_cast<int>(std::lround(text_size("Xy", st.text_scale, st.thin).height * 2.2));
  box.height = st.pad + row * static_cast<int>(entries.size()) + st.pad / 2;
  cv::rectangle(img, box, cv::Scalar(204, 204, 204), st.thin);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const int y = box.y + st.pad + row * static_cast<int>(i) + row / 2 - row / 6;
    const int x = box.x + st.pad;
    cv::line(img, {x, y}, {x + st.sample, y}, entries[i]->colour,
             std::min(entries[i]->thickness, std::max(2, st.bold * 2)), cv::LINE_AA);
    draw_text(img, shorten(entries[i]->label), {x + st.sample + st.pad, y}, st.text_scale, kBlack,
              st.thin, Align::kStart, Align::kCentre);
  }
}

}  // namespace

cv::Size text_size(const std::string& s, double scale, int thickness) {
  int baseline = 0;
  return cv::getTextSize(s, kFont, scale, thickness, &baseline);
}

void draw_text(cv::Mat& img, const std::string& s, cv::Point anchor, double scale,
               const cv::Scalar& colour, int thickness, Align h, Align v) {
  const cv::Size ts = text_size(s, scale, thickness);
  // v aligns the box from the cap height (top) to the baseline (bottom).
  const int x = aligned(anchor.x, ts.width, h);
  const int top = aligned(anchor.y, ts.height, v);
  cv::putText(img, s, {x, top + ts.height}, kFont, scale, colour, thickness, cv::LINE_AA);
}

void draw_text_upwards(cv::Mat& img, const std::string& s, cv::Point anchor, double scale,
                       const cv::Scalar& colour, int thickness, Align h, Align v) {
  int baseline = 0;
  const cv::Size ts = cv::getTextSize(s, kFont, scale, thickness, &baseline);
  const int pad = thickness + 1;
  cv::Mat coverage(ts.height + baseline + 2 * pad, ts.width + 2 * pad, CV_8U, cv::Scalar(0));
  cv::putText(coverage, s, {pad, pad + ts.height}, kFont, scale, cv::Scalar(255), thickness,
              cv::LINE_AA);
  cv::Mat rotated;
  cv::rotate(coverage, rotated, cv::ROTATE_90_COUNTERCLOCKWISE);
  // Align on the glyph box (cap height to baseline), which after rotation spans columns
  // [pad, pad + ts.height) and rows [pad, pad + ts.width).
  const int x0 = aligned(anchor.x, ts.height, h) - pad;
  const int y0 = aligned(anchor.y, ts.width, v) - pad;
  for (int r = 0; r < rotated.rows; ++r) {
    const int y = y0 + r;
    if (y < 0 || y >= img.rows) continue;
    for (int c = 0; c < rotated.cols; ++c) {
      const int x = x0 + c;
      const uchar a = rotated.at<uchar>(r, c);
      if (x < 0 || x >= img.cols || a == 0) continue;
      cv::Vec3b& px = img.at<cv::Vec3b>(y, x);
      for (int k = 0; k < 3; ++k) {
        px[k] = cv::saturate_cast<uchar>((px[k] * (255 - a) + colour[k] * a) / 255.0);
      }
    }
  }
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(hi > lo) || target < 1) return {lo};
  const double raw = (hi - lo) / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / magnitude;
  const double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * magnitude;
  std::vector<double> ticks;
  for (double t = std::ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9; t += step) {
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  }
  return ticks;
}

std::string tick_label(double value, double step) {
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  return fmt::format("{:.{}f}", value, decimals);
}

LineChart::LineChart(cv::Size size, std::string title, std::string xlabel, std::string ylabel)
    : size_(size),
      title_(std::move(title)),
      xlabel_(std::move(xlabel)),
      ylabel_(std::move(ylabel)) {}

cv::Mat LineChart::render() const {
  cv::Mat img(size_, CV_8UC3, kWhite);
  // Type sizes relative to a 900-pixel-high figure (9 x 6 inches at 150 dpi).
  const double s = size_.height / 900.0;
  const double title_scale = 0.9 * s, label_scale = 0.8 * s, tick_scale = 0.6 * s,
               legend_scale = 0.55 * s;
  const int bold = std::max(1, static_cast<int>(std::lround(2 * s)));
  const int thin = std::max(1, static_cast<int>(std::lround(s)));
  const int tick_length = static_cast<int>(8 * s), gap = static_cast<int>(12 * s);

  const std::vector<double> ticks = nice_ticks(0, 1, 5);
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1;
  int ytick_width = 0;
  for (double t : ticks) {
    ytick_width = std::max(ytick_width, text_size(tick_label(t, step), tick_scale, thin).width);
  }
  const int tick_height = text_size("0", tick_scale, thin).height;
  const int label_height = text_size("Xy", label_scale, bold).height;
  const int title_height = text_size(title_, title_scale, bold).height;

  // Legend entries and the width they need.
  std::vector<const Series*> entries;
  int legend_text = 0;
  for (const Series& line : series_) {
    if (line.label.empty()) continue;
    entries.push_back(&line);
    legend_text = std::max(legend_text, text_size(shorten(line.label), legend_scale, thin).width);
  }
  const int sample = static_cast<int>(44 * s), legend_pad = static_cast<int>(14 * s);
  const int legend_width = entries.empty() ? 0 : legend_pad * 3 + sample + legend_text;

  const int left = 2 * gap + label_height + gap + ytick_width + tick_length + gap / 2;
  const int top = 2 * gap + title_height + 2 * gap;
  const int bottom = tick_length + gap + tick_height + 2 * gap + label_height + 2 * gap;
  const int right = (entries.empty() ? 0 : legend_width + 3 * gap) + 3 * gap;
  const cv::Rect area(left, top, std::max(10, size_.width - left - right),
                      std::max(10, size_.height - top - bottom));

  draw_curves(img, area, series_);

  // Axes, ticks and labels.
  cv::rectangle(img, area, kBlack, thin);
  for (double t : ticks) {
    const std::string label = tick_label(t, step);
    const int x = area.x + static_cast<int>(std::lround(t * area.width));
    const int y = area.y + static_cast<int>(std::lround((1 - t) * area.height));
    cv::line(img, {x, area.br().y}, {x, area.br().y + tick_length}, kBlack, thin);
    cv::line(img, {area.x - tick_length, y}, {area.x, y}, kBlack, thin);
    draw_text(img, label, {x, area.br().y + tick_length + gap / 2}, tick_scale, kBlack, thin,
              Align::kCentre, Align::kStart);
    draw_text(img, label, {area.x - tick_length - gap / 2, y}, tick_scale, kBlack, thin,
              Align::kEnd, Align::kCentre);
  }
  draw_text(img, xlabel_, {area.x + area.width / 2, size_.height - 2 * gap}, label_scale, kBlack,
            bold, Align::kCentre, Align::kEnd);
  draw_text_upwards(img, ylabel_, {2 * gap, area.y + area.height / 2}, label_scale, kBlack, bold,
                    Align::kStart, Align::kCentre);
  draw_text(img, title_, {area.x + area.width / 2, 2 * gap}, title_scale, kBlack, bold,
            Align::kCentre, Align::kStart);

  // Legend beside the axes, top-aligned with them.
  if (!entries.empty()) {
    const cv::Rect box(area.br().x + 3 * gap, area.y, legend_width, 0);
    draw_legend(img, box, entries, {legend_scale, thin, bold, sample, legend_pad});
  }
  return img;
}

}  // namespace yolo::chart
