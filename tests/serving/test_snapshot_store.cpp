// The snapshot store: latest frame per stream, copied, downscaled to its bounds, limited in
// streams, drawn and encoded on request; bad frames and options rejected.
#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "yolo/serving/snapshot_store.h"

namespace {

yolo::FrameResult result(const std::string& stream, std::vector<yolo::Detection> dets = {}) {
  yolo::FrameResult r;
  r.stream_id = stream;
  r.detections = std::move(dets);
  return r;
}

cv::Mat decode(const std::optional<std::vector<unsigned char>>& bytes) {
  return bytes ? cv::imdecode(*bytes, cv::IMREAD_COLOR) : cv::Mat();
}

}  // namespace

// Only the newest frame is kept, as a copy: changing the caller's buffer afterwards changes
// nothing.
TEST(SnapshotStore, KeepsACopyOfTheLatestFrame) {
  yolo::SnapshotStore store;
  EXPECT_FALSE(store.jpeg("cam1"));
  cv::Mat frame(60, 80, CV_8UC3, cv::Scalar(0, 0, 200));
  EXPECT_TRUE(store.put(result("cam1"), frame));
  frame.setTo(cv::Scalar(200, 0, 0));  // the producer reuses its buffer
  cv::Mat got = decode(store.jpeg("cam1"));
  ASSERT_FALSE(got.empty());
  EXPECT_GT(got.at<cv::Vec3b>(30, 40)[2], 150);  // still the red frame
  EXPECT_TRUE(store.put(result("cam1"), frame));
  got = decode(store.jpeg("cam1"));
  EXPECT_GT(got.at<cv::Vec3b>(30, 40)[0], 150);  // now the blue one
  EXPECT_TRUE(store.has("cam1"));
  store.remove("cam1");
  EXPECT_FALSE(store.has("cam1"));
}

// Frames larger than the bounds are downscaled (aspect kept) and boxes scaled with them; grey
// frames work; streams beyond max_streams are refused.
TEST(SnapshotStore, BoundsAndBoxes) {
  yolo::SnapshotOptions o;
  o.max_width = 200;
  o.max_height = 200;
  o.max_streams = 2;
  yolo::SnapshotStore store(o);
  const cv::Mat big(400, 800, CV_8UC1, cv::Scalar(100));
  ASSERT_TRUE(store.put(result("a", {{100, 100, 700, 300, 0.8f, 3, "car"}}), big));
  const cv::Mat got = decode(store.jpeg("a"));
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got.cols, 200);
  EXPECT_EQ(got.rows, 100);
  // Box bottom edge at source y=300 -> 75 here, x=400 -> 100; below the box stays grey.
  const cv::Vec3d edge = got.at<cv::Vec3b>(75, 100), below = got.at<cv::Vec3b>(90, 100);
  EXPECT_GT(cv::norm(edge - below), 60.0);
  EXPECT_LT(cv::norm(below - cv::Vec3d(100, 100, 100)), 20.0);

  EXPECT_TRUE(store.put(result("b"), big));
  EXPECT_FALSE(store.put(result("c"), big));  // third stream
  EXPECT_FALSE(store.has("c"));
  EXPECT_TRUE(store.put(result("a"), big));  // existing streams still update
}

// Empty or non-8-bit frames and out-of-range options are rejected with invalid_argument.
TEST(SnapshotStore, RejectsBadInput) {
  yolo::SnapshotStore store;
  EXPECT_THROW(store.put(result("a"), cv::Mat()), std::invalid_argument);
  EXPECT_THROW(store.put(result("a"), cv::Mat(10, 10, CV_32FC3)), std::invalid_argument);
  yolo::SnapshotOptions o;
  o.jpeg_quality = 0;
  EXPECT_THROW(yolo::SnapshotStore{o}, std::invalid_argument);
  o = {};
  o.max_width = 0;
  EXPECT_THROW(yolo::SnapshotStore{o}, std::invalid_argument);
}
