// utils/metrics.py: ConfusionMatrix.plot (8.4: imshow with "Blues", cell annotations below 30
// rows, a colour bar, class names on both axes below 99 rows, every k-th class above 99 classes).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <opencv2/imgproc.hpp>

#include "chart.h"
#include "yolo/trainer/plots/metric_plots.h"
#include "yolo/trainer/plots/plots.h"

namespace yolo {
namespace {

constexpr double kHideBelow = 0.005;      // array[array < 0.005] = nan: such cells stay blank
constexpr int kMaxAnnotatedRows = 30;     // `if nc < 30` (nc counting background)
constexpr int kMaxNamedRows = 99;         // tick labels are names while `nn < 99`
constexpr int kDownsampleFrom = 100;      // `if self.nc >= 100`
constexpr double kWhiteTextAbove = 0.45;  // color_threshold = 0.45 * vmax

// matplotlib's "Blues" (ColorBrewer's 9 steps, linearly interpolated), t in [0, 1], as BGR.
cv::Scalar blues(double t) {
  static constexpr std::array<std::array<double, 3>, 9> kRgb = {{{247, 251, 255},
                                                                 {222, 235, 247},
                                                                 {198, 219, 239},
                                                                 {158, 202, 225},
                                                                 {107, 174, 214},
                                                                 {66, 146, 198},
                                                                 {33, 113, 181},
                                                                 {8, 81, 156},
                                                                 {8, 48, 107}}};
  const double pos = std::clamp(t, 0.0, 1.0) * (kRgb.size() - 1);
  const auto i = std::min(static_cast<std::size_t>(pos), kRgb.size() - 2);
  const double f = pos - static_cast<double>(i);
  const auto mix = [&](int k) { return kRgb[i][k] * (1 - f) + kRgb[i + 1][k] * f; };
  return cv::Scalar(mix(2), mix(1), mix(0));
}

// The rows/columns shown: all, or every k-th class plus background for large class counts.
std::vector<int> shown_indices(int nc) {
  std::vector<int> idx;
  const int k = nc >= kDownsampleFrom ? std::max(2, nc / 60) : 1;
  for (int c = 0; c < nc; c += k) idx.push_back(c);
  idx.push_back(nc);  // background
  return idx;
}

std::string value_text(double v, bool normalize) {
  return normalize ? fmt::format("{:.2f}", v) : fmt::format("{}", static_cast<long long>(v));
}

// Tick labels of the shown rows: names (and "background") below kMaxNamedRows rows, else
// indices at nice steps (the other rows unlabelled).
std::vector<std::string> tick_labels(const std::vector<int>& idx, int nc,
                                     const std::map<int, std::string>& names) {
  const int n = static_cast<int>(idx.size());
  std::vector<std::string> labels(idx.size());
  if (n < kMaxNamedRows) {
    for (int i = 0; i < n; ++i) {
      const auto it = names.find(idx[i]);
      labels[i] = idx[i] == nc        ? "background"
                  : it == names.end() ? std::to_string(idx[i])
                                      : it->second;
    }
  } else {
    for (double t : chart::nice_ticks(0, n - 1, 8))
      labels[static_cast<int>(t)] = fmt::format("{}", t);
  }
  return labels;
}

struct TickStyle {
  int tick_length, label_gap;
  double text_scale;
  int thickness;
};

// The colour bar from 0 (bottom) to vmax (top), with its ticks labelled on the right.
void draw_colour_bar(cv::Mat& img, const cv::Rect& bar, double vmax,
                     const std::vector<double>& ticks, const TickStyle& style) {
  for (int y = 0; y < bar.height; ++y) {
    const double t = bar.height > 1 ? 1.0 - static_cast<double>(y) / (bar.height - 1) : 1.0;
    cv::line(img, {bar.x, bar.y + y}, {bar.br().x - 1, bar.y + y}, blues(t));
  }
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1;
  for (double t : ticks) {
    const int y = bar.br().y - 1 - static_cast<int>(std::lround(t / vmax * (bar.height - 1)));
    cv::line(img, {bar.br().x, y}, {bar.br().x + style.tick_length, y}, chart::kBlack,
             style.thickness);
    chart::draw_text(img, chart::tick_label(t, step),
                     {bar.br().x + style.tick_length + style.label_gap, y}, style.text_scale,
                     chart::kBlack, style.thickness, chart::Align::kStart, chart::Align::kCentre);
  }
}

// The square grid of cells: its top-left corner, the side of one cell, cells per side.
struct CellGrid {
  cv::Point origin;
  int cell, n;
};

// Each shown cell filled by its value (empty below kHideBelow), with the value written in it
// while the grid is small enough to read.
template <typename ValueAt>
void draw_cells(cv::Mat& img, const CellGrid& g, const ValueAt& value, double vmax, bool normalize,
                double s, int thin) {
  const bool annotate = g.n < kMaxAnnotatedRows;
  double cell_scale = 0.6 * s;
  if (annotate) {
    const int widest = chart::text_size(normalize ? "0.00" : value_text(vmax, false), 1.0).width;
    cell_scale = std::min(cell_scale, 0.75 * g.cell / std::max(1, widest));
  }
  const double white_above = kWhiteTextAbove * (normalize ? 1.0 : vmax);
  for (int r = 0; r < g.n; ++r) {
    for (int c = 0; c < g.n; ++c) {
      const double v = value(r, c);
      if (std::isnan(v)) continue;
      const cv::Rect box(g.origin.x + c * g.cell, g.origin.y + r * g.cell, g.cell, g.cell);
      cv::rectangle(img, box, blues(v / vmax), cv::FILLED);
      if (annotate) {
        chart::draw_text(img, value_text(v, normalize), (box.tl() + box.br()) / 2, cell_scale,
                         v > white_above ? chart::kWhite : chart::kBlack, thin,
                         chart::Align::kCentre, chart::Align::kCentre);
      }
    }
  }
}

// Ticks: true classes along x (labels reading upwards), predicted classes along y.
void draw_class_ticks(cv::Mat& img, const CellGrid& g, const std::vector<std::string>& labels,
                      const TickStyle& style) {
  using chart::Align;
  const int side = g.cell * g.n;
  for (int i = 0; i < g.n; ++i) {
    if (labels[i].empty()) continue;
    const int centre = i * g.cell + g.cell / 2;
    const int xb = g.origin.y + side;
    cv::line(img, {g.origin.x + centre, xb}, {g.origin.x + centre, xb + style.tick_length},
             chart::kBlack, style.thickness);
    chart::draw_text_upwards(
        img, labels[i], {g.origin.x + centre, xb + style.tick_length + style.label_gap},
        style.text_scale, chart::kBlack, style.thickness, Align::kCentre, Align::kStart);
    cv::line(img, {g.origin.x - style.tick_length, g.origin.y + centre},
             {g.origin.x, g.origin.y + centre}, chart::kBlack, style.thickness);
    chart::draw_text(img, labels[i],
                     {g.origin.x - style.tick_length - style.label_gap, g.origin.y + centre},
                     style.text_scale, chart::kBlack, style.thickness, Align::kEnd, Align::kCentre);
  }
}

}  // namespace

cv::Mat plot_confusion_matrix(const metrics::ConfusionMatrix& matrix,
                              const std::map<int, std::string>& names, bool normalize) {
  using chart::Align;
  const int nc = matrix.num_classes();
  const std::vector<double> values = normalize ? matrix.normalized() : matrix.matrix();
  const std::vector<int> idx = shown_indices(nc);
  const int n = static_cast<int>(idx.size());
  const auto value = [&](int r, int c) {
    const double v = values[static_cast<std::size_t>(idx[r]) * (nc + 1) + idx[c]];
    return v < kHideBelow ? std::numeric_limits<double>::quiet_NaN() : v;
  };
  double vmax = 0;
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      if (!std::isnan(value(r, c))) vmax = std::max(vmax, value(r, c));
    }
  }
  if (vmax <= 0) vmax = 1;

  const std::vector<std::string> labels = tick_labels(idx, nc, names);

  cv::Mat img(kConfusionPlotHeight, kConfusionPlotWidth, CV_8UC3, chart::kWhite);
  const double s = kConfusionPlotHeight / 1080.0;
  const int gap = static_cast<int>(12 * s), tick_length = static_cast<int>(6 * s);
  const int bold = std::max(1, static_cast<int>(std::lround(2 * s)));
  const int thin = std::max(1, static_cast<int>(std::lround(s)));
  const double title_scale = 0.9 * s, label_scale = 0.8 * s, bar_scale = 0.55 * s;
  // Tick labels shrink with the class count (Ultralytics: max(6, 15 - 0.1 * nc) points).
  const int rough_cell = std::max(1, (kConfusionPlotHeight - 400) / n);
  const double tick_scale = std::clamp(rough_cell * 0.5 / 22.0, 0.28, 0.6) * s;
  int label_width = 0;
  for (const auto& l : labels) {
    label_width = std::max(label_width, chart::text_size(l, tick_scale, thin).width);
  }
  const int title_height = chart::text_size("Confusion", title_scale, bold).height;
  const int axis_label_height = chart::text_size("True", label_scale, bold).height;
  const std::vector<double> bar_ticks = chart::nice_ticks(0, vmax, 6);
  const double bar_step = bar_ticks.size() > 1 ? bar_ticks[1] - bar_ticks[0] : 1;
  int bar_label_width = 0;
  for (double t : bar_ticks) {
    bar_label_width = std::max(
        bar_label_width, chart::text_size(chart::tick_label(t, bar_step), bar_scale, thin).width);
  }
  const int bar_width = static_cast<int>(30 * s);

  const int left = 2 * gap + axis_label_height + 2 * gap + label_width + tick_length + gap / 2;
  const int top = 2 * gap + title_height + 3 * gap;
  const int bottom = tick_length + gap / 2 + label_width + 2 * gap + axis_label_height + 2 * gap;
  const int right = 4 * gap + bar_width + tick_length + gap / 2 + bar_label_width + 2 * gap;
  const int cell = std::max(1, std::min((kConfusionPlotWidth - left - right) / n,
                                        (kConfusionPlotHeight - top - bottom) / n));
  const int side = cell * n;
  const cv::Point origin(left + (kConfusionPlotWidth - left - right - side) / 2, top);

  // Cells and their values.
  const CellGrid grid{origin, cell, n};
  draw_cells(img, grid, value, vmax, normalize, s, thin);
  draw_class_ticks(img, grid, labels, {tick_length, gap / 2, tick_scale, thin});
  const std::string title = normalize ? "Confusion Matrix Normalized" : "Confusion Matrix";
  chart::draw_text(img, title, {origin.x + side / 2, 2 * gap}, title_scale, chart::kBlack, bold,
                   Align::kCentre, Align::kStart);
  chart::draw_text(img, "True", {origin.x + side / 2, kConfusionPlotHeight - 2 * gap}, label_scale,
                   chart::kBlack, bold, Align::kCentre, Align::kEnd);
  chart::draw_text_upwards(img, "Predicted", {2 * gap, origin.y + side / 2}, label_scale,
                           chart::kBlack, bold, Align::kStart, Align::kCentre);

  const cv::Rect bar(origin.x + side + 4 * gap, origin.y, bar_width, side);
  draw_colour_bar(img, bar, vmax, bar_ticks, {tick_length, gap / 2, bar_scale, thin});
  return img;
}

std::vector<std::filesystem::path> save_confusion_matrix_plots(
    const std::filesystem::path& dir, const metrics::ConfusionMatrix& matrix,
    const std::map<int, std::string>& names) {
  const std::vector<std::filesystem::path> paths = {dir / "confusion_matrix.png",
                                                    dir / "confusion_matrix_normalized.png"};
  save_plot(paths[0], plot_confusion_matrix(matrix, names, false));
  save_plot(paths[1], plot_confusion_matrix(matrix, names, true));
  return paths;
}

}  // namespace yolo
