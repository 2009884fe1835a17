// The geometry predicates behind lines and zones, on the cases where they are easy to get wrong:
// touching, collinear overlap, points on edges and vertices, concave and degenerate polygons.
#include <gtest/gtest.h>

#include "yolo/analytics/geometry.h"

using yolo::analytics::inside_or_on;
using yolo::analytics::is_simple;
using yolo::analytics::Point;
using yolo::analytics::segments_intersect;

TEST(Geometry, SegmentsIntersectIncludingTouching) {
  EXPECT_TRUE(segments_intersect({0, 0}, {10, 10}, {0, 10}, {10, 0}));  // proper crossing
  EXPECT_TRUE(segments_intersect({0, 0}, {5, 5}, {5, 5}, {10, 0}));     // shared endpoint
  EXPECT_TRUE(segments_intersect({0, 5}, {5, 5}, {5, 0}, {5, 10}));     // T: ends on the other
  EXPECT_TRUE(segments_intersect({0, 0}, {10, 0}, {5, 0}, {20, 0}));    // collinear overlap
  EXPECT_FALSE(segments_intersect({0, 0}, {4, 0}, {5, 0}, {20, 0}));    // collinear, apart
  EXPECT_FALSE(segments_intersect({0, 0}, {10, 0}, {0, 1}, {10, 1}));   // parallel
  EXPECT_FALSE(segments_intersect({0, 0}, {4, 4}, {0, 10}, {10, 0}));   // would cross if longer
  EXPECT_TRUE(segments_intersect({3, 3}, {3, 3}, {0, 0}, {10, 10}));    // a point on the line
  EXPECT_FALSE(segments_intersect({3, 4}, {3, 4}, {0, 0}, {10, 10}));   // a point beside it
}

TEST(Geometry, InsideOrOnCountsEdgesAndVertices) {
  const std::vector<Point> square = {{0, 0}, {10, 0}, {10, 10}, {0, 10}};
  EXPECT_TRUE(inside_or_on(square, {5, 5}));
  EXPECT_TRUE(inside_or_on(square, {10, 5}));  // on an edge
  EXPECT_TRUE(inside_or_on(square, {0, 0}));   // on a vertex
  EXPECT_FALSE(inside_or_on(square, {10.001, 5}));
  EXPECT_FALSE(inside_or_on(square, {-1, -1}));
  // A concave "U": the notch is outside.
  const std::vector<Point> u = {{0, 0}, {3, 0}, {3, 7}, {7, 7}, {7, 0}, {10, 0}, {10, 10}, {0, 10}};
  EXPECT_FALSE(inside_or_on(u, {5, 3}));
  EXPECT_TRUE(inside_or_on(u, {5, 8}));
  EXPECT_TRUE(inside_or_on(u, {1, 1}));
  // Too few points: nothing is inside.
  EXPECT_FALSE(inside_or_on({{0, 0}, {10, 10}}, {5, 5}));
}

TEST(Geometry, SimplePolygons) {
  EXPECT_TRUE(is_simple({{0, 0}, {10, 0}, {10, 10}, {0, 10}}));
  EXPECT_TRUE(is_simple({{0, 0}, {10, 0}, {5, 8}}));
  EXPECT_TRUE(is_simple({{0, 0}, {3, 0}, {3, 7}, {7, 7}, {7, 0}, {10, 0}, {10, 10}, {0, 10}}));
  EXPECT_FALSE(is_simple({{0, 0}, {10, 10}, {10, 0}, {0, 10}}));           // bow-tie
  EXPECT_FALSE(is_simple({{0, 0}, {10, 0}, {10, 10}, {10, 0}}));           // repeated corner
  EXPECT_FALSE(is_simple({{0, 0}, {10, 0}, {20, 0}}));                     // no area
  EXPECT_FALSE(is_simple({{0, 0}, {10, 0}, {5, 0}, {5, 5}}));              // folds back on an edge
  EXPECT_FALSE(is_simple({{0, 0}, {10, 0}, {10, 10}, {5, -5}, {0, 10}}));  // an edge crosses one
  EXPECT_FALSE(is_simple({{0, 0}, {10, 0}}));
}
