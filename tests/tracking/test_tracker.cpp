// The trackers' behaviour on scenes whose answer is known: ids persist, survive short gaps, end
// after track_buffer frames, start at 1 per stream and again after a reset; bad detections (NaN,
// empty boxes) and huge frames are handled.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <opencv2/core.hpp>
#include <set>

#include "yolo/tracking/stream_trackers.h"
#include "yolo/tracking/tracker.h"

using namespace yolo::tracking;

namespace {

TrackerDetection box_at(float cx, float cy, float size = 40, float score = 0.9f, int cls = 0) {
  return {cx - size / 2, cy - size / 2, cx + size / 2, cy + size / 2, score, cls};
}

TrackerConfig config_of(TrackerType type) {
  TrackerConfig c;
  c.type = type;
  c.gmc_method = GmcMethod::kNone;
  return c;
}

class TrackerKinds : public ::testing::TestWithParam<TrackerType> {};

}  // namespace

TEST_P(TrackerKinds, AMovingObjectKeepsItsId) {
  Tracker tracker(config_of(GetParam()));
  for (int f = 0; f < 50; ++f) {
    const std::vector<Track> out = tracker.update({box_at(100.0f + 4 * f, 200)});
    ASSERT_EQ(out.size(), 1u) << "frame " << f;
    EXPECT_EQ(out[0].id, 1);
    EXPECT_EQ(out[0].detection_index, 0);
    EXPECT_NEAR((out[0].x1 + out[0].x2) / 2, 100.0f + 4 * f, 2.0f);
  }
}

TEST_P(TrackerKinds, FirstFrameConfirmsAtOnceLaterTracksOnTheirSecondFrame) {
  Tracker tracker(config_of(GetParam()));
  EXPECT_EQ(tracker.update({box_at(100, 100)}).size(), 1u);
  // A newcomer on frame 2 is tentative: only the first object is reported.
  const std::vector<Track> two = tracker.update({box_at(100, 100), box_at(400, 300)});
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two[0].id, 1);
  const std::vector<Track> three = tracker.update({box_at(100, 100), box_at(400, 300)});
  ASSERT_EQ(three.size(), 2u);
  EXPECT_EQ(std::set<int64_t>({three[0].id, three[1].id}), std::set<int64_t>({1, 2}));
}

TEST_P(TrackerKinds, IdsHaveNoGapsFromTentativeTracks) {
  Tracker tracker(config_of(GetParam()));
  tracker.update({box_at(100, 100)});
  tracker.update({box_at(100, 100), box_at(500, 100)});  // a one-frame false positive
  tracker.update({box_at(100, 100)});
  tracker.update({box_at(100, 100), box_at(300, 300)});
  const std::vector<Track> out = tracker.update({box_at(100, 100), box_at(300, 300)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(std::set<int64_t>({out[0].id, out[1].id}), std::set<int64_t>({1, 2}));
}

TEST_P(TrackerKinds, AShortOcclusionKeepsTheIdALongOneEndsIt) {
  TrackerConfig c = config_of(GetParam());
  c.track_buffer = 10;
  Tracker tracker(c);
  for (int f = 0; f < 5; ++f) tracker.update({box_at(200, 200)});
  for (int f = 0; f < 8; ++f) EXPECT_TRUE(tracker.update({}).empty());
  std::vector<Track> back = tracker.update({box_at(200, 200)});
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].id, 1);
  // Now away for longer than the buffer: the track ends and the object comes back as a new one.
  bool ended = false;
  for (int f = 0; f < 14; ++f) {
    tracker.update({});
    for (int64_t id : tracker.ended_ids()) ended = ended || id == 1;
  }
  EXPECT_TRUE(ended);
  tracker.update({box_at(200, 200)});
  back = tracker.update({box_at(200, 200)});
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].id, 2);
}

TEST_P(TrackerKinds, LowScoreDetectionsKeepATrackButNeverStartOne) {
  Tracker tracker(config_of(GetParam()));
  for (int f = 0; f < 3; ++f) tracker.update({box_at(100.0f + f, 100)});
  // Scores between track_low_thresh and track_high_thresh: the second association.
  for (int f = 3; f < 10; ++f) {
    const std::vector<Track> out = tracker.update({box_at(100.0f + f, 100, 40, 0.15f)});
    ASSERT_EQ(out.size(), 1u) << "frame " << f;
    EXPECT_EQ(out[0].id, 1);
    EXPECT_FLOAT_EQ(out[0].score, 0.15f);
  }
  Tracker fresh(config_of(GetParam()));
  for (int f = 0; f < 5; ++f) EXPECT_TRUE(fresh.update({box_at(100, 100, 40, 0.15f)}).empty());
}

TEST_P(TrackerKinds, BadDetectionsAreSkippedNotPropagated) {
  Tracker tracker(config_of(GetParam()));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (int f = 0; f < 20; ++f) {
    std::vector<TrackerDetection> dets = {box_at(100, 100)};
    dets.push_back({nan, 10, 20, 30, 0.9f, 0});
    dets.push_back({10, 10, inf, 30, 0.9f, 0});
    dets.push_back({50, 50, 50, 90, 0.9f, 0});  // zero width
    dets.push_back({10, 10, 20, 20, nan, 0});
    const std::vector<Track> out = tracker.update(dets);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(std::isfinite(out[0].x1) && std::isfinite(out[0].y2));
  }
  EXPECT_EQ(tracker.skipped_detections(), 80);
}

TEST_P(TrackerKinds, ThousandsOfDetectionsPerFrame) {
  Tracker tracker(config_of(GetParam()));
  std::vector<TrackerDetection> grid;
  for (int y = 0; y < 50; ++y) {
    for (int x = 0; x < 60; ++x) grid.push_back(box_at(20.0f + 30 * x, 20.0f + 30 * y, 20));
  }
  for (int f = 0; f < 3; ++f) {
    for (TrackerDetection& d : grid) d.x1 += 1, d.x2 += 1;
    const std::vector<Track> out = tracker.update(grid);
    EXPECT_EQ(out.size(), grid.size());
  }
}

TEST_P(TrackerKinds, ResetStartsIdsAgain) {
  Tracker tracker(config_of(GetParam()));
  tracker.update({box_at(100, 100), box_at(300, 100)});
  tracker.reset();
  EXPECT_EQ(tracker.frame_count(), 0);
  const std::vector<Track> out = tracker.update({box_at(500, 400)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, 1);
}

INSTANTIATE_TEST_SUITE_P(ByteTrackAndBotSort, TrackerKinds,
                         ::testing::Values(TrackerType::kByteTrack, TrackerType::kBotSort),
                         [](const auto& p) { return std::string(to_string(p.param)); });

TEST(StreamTrackers, EachStreamHasItsOwnIdsAndReset) {
  TrackerConfig c;
  c.gmc_method = GmcMethod::kNone;
  StreamTrackers trackers(c);
  const auto a1 = trackers.update("cam-a", {box_at(100, 100), box_at(300, 100)});
  const auto b1 = trackers.update("cam-b", {box_at(100, 100)});
  ASSERT_EQ(a1.size(), 2u);
  ASSERT_EQ(b1.size(), 1u);
  EXPECT_EQ(b1[0].id, 1);
  trackers.reset("cam-a");
  EXPECT_EQ(trackers.tracker("cam-a").frame_count(), 0);
  EXPECT_EQ(trackers.tracker("cam-b").frame_count(), 1);
  trackers.reset("never-seen");  // nothing to reset, nothing made
  EXPECT_EQ(trackers.size(), 2u);
  trackers.remove("cam-b");
  EXPECT_EQ(trackers.size(), 1u);
}

TEST(BotSort, StillCameraFramesLeaveTracksWhereTheyAre) {
  // With motion compensation on and a textured still frame, the warp is the identity, so the
  // tracks match those of a tracker without compensation.
  TrackerConfig with_gmc;
  TrackerConfig without = with_gmc;
  without.gmc_method = GmcMethod::kNone;
  Tracker a(with_gmc), b(without);
  cv::Mat frame(240, 320, CV_8UC3);
  cv::randu(frame, 0, 255);
  for (int f = 0; f < 10; ++f) {
    const std::vector<TrackerDetection> dets = {box_at(100.0f + 3 * f, 120)};
    const auto ta = a.update(dets, &frame);
    const auto tb = b.update(dets);
    ASSERT_EQ(ta.size(), tb.size());
    for (size_t i = 0; i < ta.size(); ++i) EXPECT_NEAR(ta[i].x1, tb[i].x1, 1e-3);
  }
}
