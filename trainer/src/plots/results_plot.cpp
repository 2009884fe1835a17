// results.png (Ultralytics' plot_results): ten panels in two rows -- train box/cls/dfl loss,
// precision, recall; val box/cls/dfl loss, mAP50, mAP50-95 -- each with the per-epoch values
// (line with markers) and a smoothed dotted line, axes scaled to the data.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "chart.h"
#include "yolo/trainer/metrics/results_log.h"
#include "yolo/trainer/plots/plots.h"

namespace yolo {
namespace {

constexpr int kPanelW = 360, kPanelH = 300, kCols = 5, kRows = 2;
const cv::Scalar kLineColour(180, 119, 31);    // matplotlib's C0 blue, BGR
const cv::Scalar kSmoothColour(14, 127, 255);  // C1 orange

// Gaussian-weighted smoothing like scipy's gaussian_filter1d(sigma=3) that Ultralytics uses,
// with edges reflected.
std::vector<double> smooth_series(const std::vector<double>& y, double sigma = 3) {
  const int n = static_cast<int>(y.size());
  if (n < 3) return y;
  const int radius = static_cast<int>(4 * sigma + 0.5);
  std::vector<double> w(static_cast<size_t>(2 * radius + 1));
  double sum = 0;
  for (int k = -radius; k <= radius; ++k)
    sum += w[k + radius] = std::exp(-0.5 * k * k / (sigma * sigma));
  std::vector<double> out(y.size());
  for (int i = 0; i < n; ++i) {
    double acc = 0;
    for (int k = -radius; k <= radius; ++k) {
      int j = i + k;
      while (j < 0 || j >= n) j = j < 0 ? -j - 1 : 2 * n - j - 1;  // reflect
      acc += w[k + radius] * y[static_cast<size_t>(j)];
    }
    out[static_cast<size_t>(i)] = acc / sum;
  }
  return out;
}

void draw_panel(cv::Mat& canvas, cv::Rect area, const std::string& title,
                const std::vector<double>& x, const std::vector<double>& y) {
  const cv::Rect plot(area.x + 70, area.y + 34, area.width - 88, area.height - 72);
  chart::draw_text(canvas, title, {area.x + area.width / 2, area.y + 22}, 0.5, chart::kBlack, 1,
                   chart::Align::kCentre, chart::Align::kEnd);
  cv::rectangle(canvas, plot, chart::kBlack, 1);
  if (x.empty()) return;
  double ylo = *std::min_element(y.begin(), y.end()), yhi = *std::max_element(y.begin(), y.end());
  if (!(yhi > ylo)) ylo -= 0.5, yhi += 0.5;
  const double pad = (yhi - ylo) * 0.05;
  ylo -= pad, yhi += pad;
  double xlo = x.front(), xhi = x.back();
  if (!(xhi > xlo)) xlo -= 1, xhi += 1;
  auto px = [&](double v) {
    return plot.x + static_cast<int>(std::lround((v - xlo) / (xhi - xlo) * plot.width));
  };
  auto py = [&](double v) {
    return plot.y + plot.height -
           static_cast<int>(std::lround((v - ylo) / (yhi - ylo) * plot.height));
  };
  auto xt = chart::nice_ticks(xlo, xhi, 5), yt = chart::nice_ticks(ylo, yhi, 5);
  const double xstep = xt.size() > 1 ? xt[1] - xt[0] : 1, ystep = yt.size() > 1 ? yt[1] - yt[0] : 1;
  for (double t : xt) {
    if (t < xlo || t > xhi) continue;
    cv::line(canvas, {px(t), plot.y + plot.height}, {px(t), plot.y + plot.height + 4},
             chart::kBlack);
    chart::draw_text(canvas, chart::tick_label(t, xstep), {px(t), plot.y + plot.height + 8}, 0.38,
                     chart::kBlack, 1, chart::Align::kCentre, chart::Align::kStart);
  }
  for (double t : yt) {
    if (t < ylo || t > yhi) continue;
    cv::line(canvas, {plot.x - 4, py(t)}, {plot.x, py(t)}, chart::kBlack);
    chart::draw_text(canvas, chart::tick_label(t, ystep), {plot.x - 7, py(t)}, 0.38, chart::kBlack,
                     1, chart::Align::kEnd, chart::Align::kCentre);
  }
  std::vector<cv::Point> pts, spts;
  auto s = smooth_series(y);
  for (size_t i = 0; i < x.size(); ++i) {
    pts.emplace_back(px(x[i]), py(y[i]));
    spts.emplace_back(px(x[i]), py(s[i]));
  }
  cv::polylines(canvas, pts, false, kLineColour, 2, cv::LINE_AA);
  for (const auto& p : pts) cv::circle(canvas, p, 3, kLineColour, cv::FILLED, cv::LINE_AA);
  for (size_t i = 0; i + 1 < spts.size(); i += 2)  // dotted: every other segment
    cv::line(canvas, spts[i], spts[i + 1], kSmoothColour, 2, cv::LINE_AA);
}

}  // namespace

void ResultsLog::plot(const std::filesystem::path& path) const {
  struct Panel {
    std::string title;
    std::function<double(const ResultsRow&)> value;
  };
  const Panel panels[kCols * kRows] = {
      {"train/box_loss", [](const ResultsRow& r) { return r.train_loss[0]; }},
      {"train/cls_loss", [](const ResultsRow& r) { return r.train_loss[1]; }},
      {"train/" + third_loss_, [](const ResultsRow& r) { return r.train_loss[2]; }},
      {"metrics/precision(B)", [](const ResultsRow& r) { return r.precision; }},
      {"metrics/recall(B)", [](const ResultsRow& r) { return r.recall; }},
      {"val/box_loss", [](const ResultsRow& r) { return r.val_loss[0]; }},
      {"val/cls_loss", [](const ResultsRow& r) { return r.val_loss[1]; }},
      {"val/" + third_loss_, [](const ResultsRow& r) { return r.val_loss[2]; }},
      {"metrics/mAP50(B)", [](const ResultsRow& r) { return r.map50; }},
      {"metrics/mAP50-95(B)", [](const ResultsRow& r) { return r.map50_95; }},
  };
  cv::Mat canvas(kRows * kPanelH, kCols * kPanelW, CV_8UC3, chart::kWhite);
  std::vector<double> x;
  for (const auto& r : rows_) x.push_back(r.epoch);
  for (int i = 0; i < kCols * kRows; ++i) {
    std::vector<double> y;
    for (const auto& r : rows_) y.push_back(panels[i].value(r));
    draw_panel(canvas, {(i % kCols) * kPanelW, (i / kCols) * kPanelH, kPanelW, kPanelH},
               panels[i].title, x, y);
  }
  save_plot(path, canvas);
}

}  // namespace yolo
