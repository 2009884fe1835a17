// Checks one label file the way Ultralytics' verify_image_label does, with messages that name
// the line and what is wrong.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>
#include <tuple>

#include "yolo/trainer/data/dataset.h"

namespace yolo {
namespace {

constexpr double kCoordMin = -0.01, kCoordMax = 1.01;  // Ultralytics' tolerance

bool parse_number(const std::string& token, double& out) {
  char* end = nullptr;
  out = std::strtod(token.c_str(), &end);
  return end && *end == '\0' && end != token.c_str();
}

}  // namespace

LabelParseResult parse_label_text(const std::string& text, int nc) {
  LabelParseResult r;
  std::istringstream lines(text);
  std::string line;
  int line_no = 0;
  std::set<std::tuple<int, float, float, float, float>> seen;
  auto fail = [&](const std::string& why) {
    r.error_line = line_no;
    r.error = fmt::format("line {}: {}", line_no, why);
    r.boxes.clear();
    return r;
  };
  while (std::getline(lines, line)) {
    ++line_no;
    std::istringstream tokens(line);
    std::vector<double> v;
    for (std::string tok; tokens >> tok;) {
      double d = 0;
      if (!parse_number(tok, d)) return fail(fmt::format("'{}' is not a number", tok));
      if (!std::isfinite(d)) return fail(fmt::format("'{}' is not a finite number", tok));
      v.push_back(d);
    }
    if (v.empty()) continue;  // blank line
    const size_t cols = v.size();
    const bool polygon = cols > 6;
    if (!polygon && cols != 5) {
      return fail(fmt::format("{} columns; a box needs 5 (class cx cy w h){}", cols,
                              cols == 6 ? " (is this a predictions file with confidences?)" : ""));
    }
    if (polygon && cols % 2 == 0) {
      return fail(fmt::format("{} columns; a polygon needs a class and x y pairs", cols));
    }
    if (v[0] < 0 || v[0] != std::floor(v[0])) {
      return fail(fmt::format("class '{}' is not a non-negative integer", v[0]));
    }
    // Compared as a double: a class such as 1e23 does not fit an int (found by fuzz_label_lines).
    if (v[0] >= nc) {
      return fail(fmt::format("class {} exceeds the dataset's class count {} (classes 0-{})", v[0],
                              nc, nc - 1));
    }
    const int cls = static_cast<int>(v[0]);
    for (size_t i = 1; i < cols; ++i) {
      if (v[i] < kCoordMin || v[i] > kCoordMax) {
        return fail(
            fmt::format("coordinate {} is outside [0, 1]: labels must be normalised by "
                        "the image width and height",
                        v[i]));
      }
    }
    double x1, y1, x2, y2;
    if (polygon) {
      x1 = y1 = 1e9;
      x2 = y2 = -1e9;
      for (size_t i = 1; i + 1 < cols; i += 2) {
        x1 = std::min(x1, v[i]);
        x2 = std::max(x2, v[i]);
        y1 = std::min(y1, v[i + 1]);
        y2 = std::max(y2, v[i + 1]);
      }
      ++r.polygons;
    } else {
      x1 = v[1] - v[3] / 2;
      x2 = v[1] + v[3] / 2;
      y1 = v[2] - v[4] / 2;
      y2 = v[2] + v[4] / 2;
    }
    x1 = std::clamp(x1, 0.0, 1.0);
    x2 = std::clamp(x2, 0.0, 1.0);
    y1 = std::clamp(y1, 0.0, 1.0);
    y2 = std::clamp(y2, 0.0, 1.0);
    LabelBox b{cls, static_cast<float>((x1 + x2) / 2), static_cast<float>((y1 + y2) / 2),
               static_cast<float>(x2 - x1), static_cast<float>(y2 - y1)};
    if (!seen.insert({b.cls, b.cx, b.cy, b.w, b.h}).second) {
      ++r.duplicates_removed;
      continue;
    }
    r.boxes.push_back(b);
  }
  return r;
}

}  // namespace yolo
