// Drawing pieces for figure-like plots (the metric curves and the confusion matrix): text with
// alignment and rotation, "nice" axis ticks, and a line chart with axes, ticks, title and a legend
// beside the axes, in the layout of Ultralytics' matplotlib figures. Private to the plots unit.
#pragma once

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

namespace yolo::chart {

inline constexpr int kFont = cv::FONT_HERSHEY_SIMPLEX;
const cv::Scalar kBlack(0, 0, 0), kWhite(255, 255, 255), kGrey(128, 128, 128);

enum class Align { kStart, kCentre, kEnd };

// Size of s drawn at `scale` with `thickness` (width, height above the baseline).
cv::Size text_size(const std::string& s, double scale, int thickness = 1);

// Draws s so that `anchor` sits at the given horizontal and vertical alignment of its box
// (kStart = left / top).
void draw_text(cv::Mat& img, const std::string& s, cv::Point anchor, double scale,
               const cv::Scalar& colour, int thickness = 1, Align h = Align::kStart,
               Align v = Align::kEnd);

// Draws s rotated 90 degrees counter-clockwise (reading upwards), the rotated box aligned to
// `anchor` by h and v like draw_text; blended through its anti-aliased coverage.
void draw_text_upwards(cv::Mat& img, const std::string& s, cv::Point anchor, double scale,
                       const cv::Scalar& colour, int thickness = 1, Align h = Align::kCentre,
                       Align v = Align::kCentre);

// Ticks at 1, 2 or 5 times a power of ten covering [lo, hi], about `target` of them.
std::vector<double> nice_ticks(double lo, double hi, int target = 6);

// A tick value with as many decimals as the tick step needs ("0.2", "1.0", "20").
std::string tick_label(double value, double step);

// One line of a LineChart; an empty label keeps it out of the legend.
struct Series {
  std::vector<double> x, y;
  cv::Scalar colour;
  int thickness = 2;
  std::string label;
};

// x and y both on [0, 1] (as every Ultralytics metric curve), legend outside the axes at the
// upper right, as `ax.legend(bbox_to_anchor=(1.04, 1), loc="upper left")`.
class LineChart {
 public:
  LineChart(cv::Size size, std::string title, std::string xlabel, std::string ylabel);
  void add(Series s) { series_.push_back(std::move(s)); }
  cv::Mat render() const;

 private:
  cv::Size size_;
  std::string title_, xlabel_, ylabel_;
  std::vector<Series> series_;
};

}  // namespace yolo::chart
