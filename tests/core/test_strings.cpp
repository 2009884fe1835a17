// The string helpers behind "did you mean" hints and case-insensitive names.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "yolo/core/strings.h"

TEST(Strings, LowerFoldsAsciiOnly) {
  EXPECT_EQ(yolo::lower("RTSP://Cam.MP4"), "rtsp://cam.mp4");
  EXPECT_EQ(yolo::lower(""), "");
  EXPECT_EQ(yolo::lower("\xc3\x84"), "\xc3\x84");  // UTF-8 bytes pass through unchanged
}

TEST(Strings, EditDistanceCountsInsertDeleteSubstituteAndSwap) {
  EXPECT_EQ(yolo::edit_distance("epocs", "epochs"), 1u);
  EXPECT_EQ(yolo::edit_distance("", "abc"), 3u);
  EXPECT_EQ(yolo::edit_distance("abc", ""), 3u);
  EXPECT_EQ(yolo::edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(yolo::edit_distance("iuo", "iou"), 1u);  // two neighbours swapped
  EXPECT_EQ(yolo::edit_distance("ab", "ba"), 1u);
  EXPECT_EQ(yolo::edit_distance("ca", "abc"), 3u);  // optimal string alignment, not Damerau
  EXPECT_EQ(yolo::edit_distance("same", "same"), 0u);
}

TEST(Strings, ClosestMatchesBestFirstWithinALimit) {
  const std::vector<std::string> keys = {"epochs", "patience", "batch", "imgsz", "optimizer"};
  EXPECT_EQ(yolo::closest_matches("epocs", keys, 3), (std::vector<std::string>{"epochs"}));
  EXPECT_EQ(yolo::closest_matches("optim", keys, 3), (std::vector<std::string>{"optimizer"}));
  EXPECT_TRUE(yolo::closest_matches("zzzzzz", keys, 3).empty());
  EXPECT_EQ(yolo::closest_matches("imgs", keys, 3).front(), "imgsz");
  EXPECT_EQ(yolo::closest_matches("imgsize", {"imgsz", "batch", "iou"}, 3).front(), "imgsz");
  // One edit from both: the swap of the same length wins over the dropped letter, in any order.
  EXPECT_EQ(yolo::closest_matches("modle", {"mode", "model"}, 3).front(), "model");
  EXPECT_EQ(yolo::closest_matches("modle", {"model", "mode"}, 3).front(), "model");
  EXPECT_EQ(yolo::closest_matches("--chek", {"--config", "--check", "--help"}, 3).front(),
            "--check");
}

// Numbered names in the order a person reads them: numbers as numbers, anywhere in the name.
TEST(Strings, NaturalOrderComparesNumbersAsNumbers) {
  std::vector<std::string> names = {"10.jpg",      "2.jpg",   "1.jpg",     "frame_11.png",
                                    "frame_9.png", "b.jpg",   "a10b2.jpg", "a10b10.jpg",
                                    "a9.jpg",      "001.jpg", "0.jpg",     "1a.jpg"};
  std::sort(names.begin(), names.end(), yolo::natural_less);
  const std::vector<std::string> want = {"0.jpg",      "1.jpg",  "001.jpg",     "1a.jpg",
                                         "2.jpg",      "10.jpg", "a9.jpg",      "a10b2.jpg",
                                         "a10b10.jpg", "b.jpg",  "frame_9.png", "frame_11.png"};
  EXPECT_EQ(names, want);
  // A strict weak order: irreflexive and asymmetric, also for equal numbers written apart.
  for (const auto& a : want) {
    EXPECT_FALSE(yolo::natural_less(a, a)) << a;
    for (const auto& b : want) {
      if (a != b) {
        EXPECT_NE(yolo::natural_less(a, b), yolo::natural_less(b, a)) << a << " " << b;
      }
    }
  }
  // Zero-padded names keep byte order; numbers longer than any integer type still compare.
  EXPECT_TRUE(yolo::natural_less("000009.jpg", "000010.jpg"));
  EXPECT_TRUE(yolo::natural_less("99999999999999999999998", "99999999999999999999999"));
  EXPECT_TRUE(yolo::natural_less("x", "x1"));
}
