#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <stdexcept>

#include "yolo/core/atomic_file.h"
#include "yolo/trainer/plots/plots.h"

namespace yolo {
namespace {

constexpr int kPanel = 400;
const cv::Scalar kInk(40, 40, 40), kGrid(220, 220, 220), kWhite(255, 255, 255);

void text(cv::Mat& img, const std::string& s, cv::Point at, double scale = 0.4,
          cv::Scalar colour = kInk, int thickness = 1) {
  cv::putText(img, s, at, cv::FONT_HERSHEY_SIMPLEX, scale, colour, thickness, cv::LINE_AA);
}

// A panel with a title and a plotting area inset by margins; returns the area.
cv::Rect panel_area(cv::Mat& panel, const std::string& title) {
  panel.setTo(kWhite);
  text(panel, title, {12, 20}, 0.5, kInk, 1);
  return cv::Rect(48, 34, kPanel - 64, kPanel - 82);
}

void axes(cv::Mat& p, const cv::Rect& a, const std::string& xlabel, const std::string& ylabel) {
  for (int i = 0; i <= 4; ++i) {
    const int x = a.x + a.width * i / 4, y = a.y + a.height * i / 4;
    cv::line(p, {x, a.y}, {x, a.y + a.height}, kGrid);
    cv::line(p, {a.x, y}, {a.x + a.width, y}, kGrid);
    text(p, fmt::format("{:.2f}", i / 4.0), {x - 12, a.y + a.height + 14}, 0.33);
    text(p, fmt::format("{:.2f}", 1 - i / 4.0), {8, y + 4}, 0.33);
  }
  cv::rectangle(p, a, kInk);
  text(p, xlabel, {a.x + a.width / 2 - 10, a.y + a.height + 32}, 0.45);
  text(p, ylabel, {8, a.y - 6}, 0.45);
}

// 2-D histogram of points in [0,1]^2 as a heat map inside the area (y up).
void heatmap(cv::Mat& p, const cv::Rect& a, const std::vector<cv::Point2f>& pts) {
  constexpr int kBins = 50;
  cv::Mat hist(kBins, kBins, CV_32F, cv::Scalar(0));
  for (const auto& q : pts) {
    const int bx = std::clamp(static_cast<int>(q.x * kBins), 0, kBins - 1);
    const int by = std::clamp(static_cast<int>((1 - q.y) * kBins), 0, kBins - 1);
    hist.at<float>(by, bx) += 1;
  }
  double maxv = 0;
  cv::minMaxLoc(hist, nullptr, &maxv);
  if (maxv <= 0) return;
  cv::Mat norm, u8, colour, big;
  cv::log(hist + 1, norm);  // log scale: sparse tails stay visible
  norm.convertTo(u8, CV_8U, 255.0 / std::log(maxv + 1));
  cv::applyColorMap(u8, colour, cv::COLORMAP_VIRIDIS);
  colour.setTo(kWhite, u8 == 0);
  cv::resize(colour, big, a.size(), 0, 0, cv::INTER_NEAREST);
  big.copyTo(p(a));
}

cv::Mat class_bars(const std::vector<ImageRecord>& records,
                   const std::map<int, std::string>& names) {
  cv::Mat p(kPanel, kPanel, CV_8UC3);
  const cv::Rect a = panel_area(p, "instances per class");
  std::vector<int> counts(std::max<size_t>(names.size(), 1), 0);
  for (const auto& r : records) {
    for (const auto& b : r.boxes) {
      if (b.cls >= 0 && b.cls < static_cast<int>(counts.size())) ++counts[b.cls];
    }
  }
  const int maxc = std::max(1, *std::max_element(counts.begin(), counts.end()));
  const int n = static_cast<int>(counts.size());
  const double bw = static_cast<double>(a.width) / n;
  for (int i = 0; i < n; ++i) {
    const int h = static_cast<int>(std::round(double(counts[i]) / maxc * (a.height - 16)));
    cv::Rect bar(a.x + static_cast<int>(i * bw + bw * 0.1), a.y + a.height - h,
                 std::max(1, static_cast<int>(bw * 0.8)), h);
    cv::rectangle(p, bar, class_colour(i), cv::FILLED);
    if (n <= 20) {
      text(p, std::to_string(counts[i]), {bar.x, bar.y - 3}, 0.33);
      auto it = names.find(i);
      std::string label = it == names.end() ? std::to_string(i) : it->second;
      if (label.size() > 10) label = label.substr(0, 9) + ".";
      text(p, label, {bar.x, a.y + a.height + 14}, 0.33);
    }
  }
  cv::rectangle(p, a, kInk);
  return p;
}

cv::Mat box_shapes(const std::vector<ImageRecord>& records) {
  cv::Mat p(kPanel, kPanel, CV_8UC3);
  const cv::Rect a = panel_area(p, "box shapes (up to 1000)");
  cv::Mat layer = p.clone();
  int drawn = 0;
  for (const auto& r : records) {
    for (const auto& b : r.boxes) {
      if (drawn++ >= 1000) break;
      const cv::Point c(a.x + a.width / 2, a.y + a.height / 2);
      const int hw = static_cast<int>(b.w * a.width / 2), hh = static_cast<int>(b.h * a.height / 2);
      cv::rectangle(layer, {c.x - hw, c.y - hh}, {c.x + hw, c.y + hh}, class_colour(b.cls), 1);
    }
  }
  cv::addWeighted(layer, 0.5, p, 0.5, 0, p);
  cv::rectangle(p, a, kInk);
  return p;
}

}  // namespace

cv::Mat plot_label_statistics(const std::vector<ImageRecord>& records,
                              const std::map<int, std::string>& names) {
  std::vector<cv::Point2f> centres, sizes;
  for (const auto& r : records) {
    for (const auto& b : r.boxes) {
      centres.emplace_back(b.cx, b.cy);
      sizes.emplace_back(b.w, b.h);
    }
  }
  cv::Mat xy(kPanel, kPanel, CV_8UC3), wh(kPanel, kPanel, CV_8UC3);
  cv::Rect a = panel_area(xy, "box centres");
  heatmap(xy, a, centres);
  axes(xy, a, "x", "y");
  a = panel_area(wh, "box sizes");
  heatmap(wh, a, sizes);
  axes(wh, a, "width", "height");
  cv::Mat top, bottom, out;
  cv::hconcat(class_bars(records, names), box_shapes(records), top);
  cv::hconcat(xy, wh, bottom);
  cv::vconcat(top, bottom, out);
  return out;
}

cv::Mat plot_batch(const Batch& batch, const std::map<int, std::string>& names, int max_images) {
  const int n = std::min<int>(static_cast<int>(batch.images.size(0)), max_images);
  if (n == 0) throw std::invalid_argument("plot_batch: empty batch");
  const int cols = static_cast<int>(std::ceil(std::sqrt(n)));
  const int rows = (n + cols - 1) / cols;
  const int h = static_cast<int>(batch.images.size(2)), w = static_cast<int>(batch.images.size(3));
  // (B, 3, H, W) RGB [0, 1] -> (B, H, W, 3) BGR uint8
  torch::Tensor u8 = batch.images.slice(0, 0, n)
                         .detach()
                         .cpu()
                         .mul(255)
                         .round()
                         .clamp(0, 255)
                         .to(torch::kUInt8)
                         .flip({1})
                         .permute({0, 2, 3, 1})
                         .contiguous();
  cv::Mat grid(rows * h, cols * w, CV_8UC3, cv::Scalar::all(114));
  auto targets = batch.targets.detach().cpu().to(torch::kFloat).contiguous();
  const float* t = targets.data_ptr<float>();
  for (int i = 0; i < n; ++i) {
    cv::Mat tile(h, w, CV_8UC3, u8[i].data_ptr<uint8_t>());
    cv::Mat dst = grid(cv::Rect((i % cols) * w, (i / cols) * h, w, h));
    tile.copyTo(dst);
    for (int64_t k = 0; k < targets.size(0); ++k) {
      const float* r = t + k * 6;
      if (static_cast<int>(r[0]) != i) continue;
      const int cls = static_cast<int>(r[1]);
      const cv::Point p1(static_cast<int>((r[2] - r[4] / 2) * w),
                         static_cast<int>((r[3] - r[5] / 2) * h));
      const cv::Point p2(static_cast<int>((r[2] + r[4] / 2) * w),
                         static_cast<int>((r[3] + r[5] / 2) * h));
      cv::rectangle(dst, p1, p2, class_colour(cls), 2);
      auto it = names.find(cls);
      text(dst, it == names.end() ? std::to_string(cls) : it->second,
           {p1.x + 2, std::max(p1.y - 3, 10)}, 0.4, class_colour(cls), 1);
    }
    text(dst, std::filesystem::path(batch.paths[i]).filename().string(), {4, h - 6}, 0.35, kWhite);
    cv::rectangle(grid, cv::Rect((i % cols) * w, (i / cols) * h, w, h), kWhite, 2);
  }
  return grid;
}

void save_plot(const std::filesystem::path& path, const cv::Mat& image) {
  std::vector<uchar> bytes;
  // Line art (curves, matrices) stays sharp as PNG; photos (batches) are smaller as JPEG.
  const bool png = path.extension() == ".png";
  const bool encoded = png ? cv::imencode(".png", image, bytes)
                           : cv::imencode(".jpg", image, bytes, {cv::IMWRITE_JPEG_QUALITY, 90});
  if (!encoded) {
    throw std::runtime_error(fmt::format("cannot encode plot '{}'", path.string()));
  }
  write_file_atomically(path, std::string(bytes.begin(), bytes.end()));
}

}  // namespace yolo
