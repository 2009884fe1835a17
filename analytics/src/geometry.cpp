#include "yolo/analytics/geometry.h"

#include <algorithm>
#include <cstddef>

namespace yolo::analytics {

int orientation(Point a, Point b, Point c) {
  const double v = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
  return (v > 0) - (v < 0);
}

bool on_segment(Point a, Point b, Point p) {
  return orientation(a, b, p) == 0 && std::min(a.x, b.x) <= p.x && p.x <= std::max(a.x, b.x) &&
         std::min(a.y, b.y) <= p.y && p.y <= std::max(a.y, b.y);
}

bool segments_intersect(Point p1, Point p2, Point q1, Point q2) {
  const int o1 = orientation(p1, p2, q1), o2 = orientation(p1, p2, q2);
  const int o3 = orientation(q1, q2, p1), o4 = orientation(q1, q2, p2);
  if (o1 * o2 < 0 && o3 * o4 < 0) return true;  // a proper crossing
  // Touching or collinear overlap: an endpoint of one lies on the other. Covers degenerate
  // (single-point) segments too, for which every orientation is 0.
  return on_segment(p1, p2, q1) || on_segment(p1, p2, q2) || on_segment(q1, q2, p1) ||
         on_segment(q1, q2, p2);
}

bool inside_or_on(const std::vector<Point>& polygon, Point p) {
  const size_t n = polygon.size();
  if (n < 3) return false;
  bool inside = false;
  for (size_t i = 0, j = n - 1; i < n; j = i++) {
    const Point a = polygon[i], b = polygon[j];
    if (on_segment(a, b, p)) return true;
    // Even-odd rule: count edges a horizontal ray to the right of p crosses.
    if ((a.y > p.y) != (b.y > p.y)) {
      const double x = a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y);
      if (p.x < x) inside = !inside;
    }
  }
  return inside;
}

double twice_signed_area(const std::vector<Point>& polygon) {
  double sum = 0;
  const size_t n = polygon.size();
  for (size_t i = 0; i < n; ++i) {
    const Point a = polygon[i], b = polygon[(i + 1) % n];
    sum += a.x * b.y - b.x * a.y;
  }
  return sum;
}

bool is_simple(const std::vector<Point>& polygon) {
  const size_t n = polygon.size();
  if (n < 3) return false;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      if (polygon[i] == polygon[j]) return false;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const Point a = polygon[i], b = polygon[(i + 1) % n];
    for (size_t j = i + 1; j < n; ++j) {
      const Point c = polygon[j], d = polygon[(j + 1) % n];
      const bool next = j == i + 1, wraps = i == 0 && j == n - 1;
      if (next || wraps) {
        // Neighbours share one vertex; they must not fold back onto each other (collinear and
        // overlapping beyond that vertex).
        const Point shared = next ? b : a;
        const Point other_of_first = next ? a : b;
        const Point other_of_second = next ? d : c;
        if (orientation(other_of_first, shared, other_of_second) == 0 &&
            (on_segment(shared, other_of_first, other_of_second) ||
             on_segment(shared, other_of_second, other_of_first)))
          return false;
        continue;
      }
      if (segments_intersect(a, b, c, d)) return false;
    }
  }
  return twice_signed_area(polygon) != 0;
}

}  // namespace yolo::analytics
