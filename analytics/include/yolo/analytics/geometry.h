// Plane geometry for lines and zones, in frame pixels (x right, y down). Predicates follow the
// semantics of shapely (GEOS), which Ultralytics' solutions use: "intersects" includes touching,
// "contains" excludes the boundary.
#pragma once

#include <vector>

namespace yolo::analytics {

struct Point {
  double x = 0, y = 0;
};
inline bool operator==(Point a, Point b) {
  return a.x == b.x && a.y == b.y;
}

// Sign of the turn a -> b -> c: +1 or -1, 0 when the three are collinear.
int orientation(Point a, Point b, Point c);

// The closed segments [p1, p2] and [q1, q2] share at least one point (touching counts; a
// segment may be a single point).
bool segments_intersect(Point p1, Point p2, Point q1, Point q2);

// p lies on the closed segment [a, b].
bool on_segment(Point a, Point b, Point p);

// Polygons: the vertices in order, at least 3, closed implicitly (last to first).
// p is inside the polygon or on its boundary.
bool inside_or_on(const std::vector<Point>& polygon, Point p);
// Twice the signed area (positive when the vertices turn clockwise on the screen).
double twice_signed_area(const std::vector<Point>& polygon);
// No two edges meet except neighbours at their shared vertex, and no vertex repeats: the
// polygon is a simple one (a bow-tie, a spike folding back on an edge, or a repeated corner is
// not).
bool is_simple(const std::vector<Point>& polygon);

}  // namespace yolo::analytics
