// The `yolotracker` element through GstHarness, against the tracking library run on the same
// detections: ids persist and are handed out in order, boxes are the tracker's, unconfirmed
// detections are removed (kept with keep-untracked), ids start again on stream-start, flush and
// a changed segment, frames the detector skipped are not tracked, BoT-SORT's motion compensation
// sees the frame in every format, bad input and bad settings. Also the ROI meta layout of tracked
// detections (attach_roi_metas / read_roi_metas round trip).
#include <gst/check/gstharness.h>
#include <gst/video/gstvideometa.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <opencv2/imgproc.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gst_test_support.h"
#include "harness_frames.h"
#include "yolo/gst/detection_meta.h"
#include "yolo/gst/tracker_settings.h"
#include "yolo/tracking/tracker.h"
#include "yolo/tracking/tracker_config.h"

namespace {

using yolo::Detection;
using yolo::testing::Buffer;
using yolo::testing::caps_string;
using yolo::testing::Harness;
using yolo::tracking::Track;
using yolo::tracking::TrackerDetection;

::testing::Environment* const gst_env =
    ::testing::AddGlobalTestEnvironment(new yolo::testing::GstEnvironment);

constexpr int kWidth = 320, kHeight = 160;

// Object a moves right 3 px a frame from frame 0; b appears on frame 3 and moves left 2 px.
std::vector<Detection> scene(int frame) {
  std::vector<Detection> d;
  const float ax = 10.0f + 3.0f * static_cast<float>(frame);
  d.push_back({ax, 20.5f, ax + 40.0f, 60.25f, 0.9f, 0, "a"});
  if (frame >= 3) {
    const float bx = 200.0f - 2.0f * static_cast<float>(frame);
    d.push_back({bx, 40.0f, bx + 30.0f, 80.0f, 0.8f, 1, "b"});
  }
  return d;
}

// A grey BGR frame (or `image` converted to `format`) carrying `detections` as ROI metas.
GstBuffer* frame_with(const std::vector<Detection>& detections, guint64 index,
                      const std::string& format = "BGR", const cv::Mat& image = {}) {
  const cv::Mat bgr =
      image.empty() ? cv::Mat(kHeight, kWidth, CV_8UC3, cv::Scalar(60, 60, 60)) : image;
  const int width = bgr.cols, height = bgr.rows;
  const cv::Mat converted = yolo::testing::bgr_to_format(bgr, format);
  const size_t bytes = converted.total() * converted.elemSize();
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, bytes, nullptr);
  gst_buffer_fill(buffer, 0, converted.data, bytes);
  GST_BUFFER_PTS(buffer) = index * GST_SECOND / 30;
  GST_BUFFER_DURATION(buffer) = GST_SECOND / 30;
  yolo::gst::attach_roi_metas(buffer, detections, width, height);
  return buffer;
}

Harness tracker(const std::string& properties, const std::string& format = "BGR") {
  Harness h(gst_harness_new_parse(("yolotracker " + properties).c_str()));
  gst_harness_set_src_caps_str(h.get(), caps_string(format, kWidth, kHeight).c_str());
  return h;
}

// Pushes one frame and returns it as it comes out.
Buffer push_pull(Harness& h, GstBuffer* in) {
  EXPECT_EQ(gst_harness_push(h.get(), in), GST_FLOW_OK);
  return Buffer(gst_harness_pull(h.get()));
}

// The output's detections with their exact boxes (normalised corners), and their metas.
struct Region {
  Detection d;
  GstVideoRegionOfInterestMeta* roi;
};
std::vector<Region> regions(GstBuffer* buffer) {
  std::vector<Region> out;
  gpointer state = nullptr;
  while (GstMeta* m = gst_buffer_iterate_meta_filtered(
             buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
    auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
    if (auto d = yolo::gst::roi_detection(roi, kWidth, kHeight)) out.push_back({*d, roi});
  }
  return out;
}

std::vector<TrackerDetection> tracker_input(const std::vector<Detection>& detections) {
  std::vector<TrackerDetection> in;
  for (const Detection& d : detections)
    in.push_back({d.x1, d.y1, d.x2, d.y2, d.confidence, d.class_id});
  return in;
}

std::vector<int64_t> ids_of(GstBuffer* buffer) {
  std::vector<int64_t> ids;
  for (const Detection& d : yolo::gst::read_roi_metas(buffer)) ids.push_back(d.track_id);
  return ids;
}

guint64 stat(Harness& h, const char* field) {
  GstElement* element = gst_harness_find_element(h.get(), "yolotracker");
  GstStructure* s = nullptr;
  g_object_get(element, "stats", &s, nullptr);
  gst_object_unref(element);
  guint64 v = 0;
  EXPECT_TRUE(gst_structure_get_uint64(s, field, &v)) << field;
  gst_structure_free(s);
  return v;
}

void push_segment(Harness& h, GstClockTime base = 0) {
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  segment.base = base;
  ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_segment(&segment)));
}

}  // namespace

// Each frame's output is exactly the library's confirmed tracks: same ids, the tracker's boxes
// (in the ROI rectangle, rounded outwards, and exactly in the normalised corners), roi->id and
// the "tracking" structure; b is dropped on frame 3 (tentative) and is id 2 from frame 4.
TEST(YoloTracker, OutputIsTheTrackersConfirmedTracks) {
  Harness h = tracker("tracker=bytetrack.yaml");
  yolo::tracking::Tracker reference(yolo::tracking::load_tracker_config("bytetrack.yaml"));
  float largest_smoothing = 0;
  for (int f = 0; f < 12; ++f) {
    SCOPED_TRACE("frame " + std::to_string(f));
    const std::vector<Detection> in = scene(f);
    const std::vector<Track> expected = reference.update(tracker_input(in));
    const Buffer out = push_pull(h, frame_with(in, f));
    ASSERT_TRUE(out);
    const std::vector<Region> got = regions(out.get());
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      const Track& t = expected[i];
      const Detection& d = got[i].d;
      EXPECT_EQ(d.track_id, t.id);
      EXPECT_EQ(got[i].roi->id, t.id);
      EXPECT_EQ(d.class_name, in[static_cast<size_t>(t.detection_index)].class_name);
      EXPECT_FLOAT_EQ(d.confidence, t.score);
      EXPECT_NEAR(d.x1, t.x1, 1e-3);
      EXPECT_NEAR(d.y1, t.y1, 1e-3);
      EXPECT_NEAR(d.x2, t.x2, 1e-3);
      EXPECT_NEAR(d.y2, t.y2, 1e-3);
      EXPECT_EQ(got[i].roi->x, static_cast<guint>(std::floor(t.x1)));
      EXPECT_EQ(got[i].roi->x + got[i].roi->w, static_cast<guint>(std::ceil(t.x2)));
      const GstStructure* s =
          gst_video_region_of_interest_meta_get_param(got[i].roi, yolo::gst::kTrackingParams);
      ASSERT_NE(s, nullptr);
      guint64 frames_tracked = 0;
      EXPECT_TRUE(gst_structure_get_uint64(s, "frames-tracked", &frames_tracked));
      EXPECT_EQ(static_cast<int64_t>(frames_tracked), t.frames_since_found + 1);
      const Detection& source = in[static_cast<size_t>(t.detection_index)];
      largest_smoothing = std::max(largest_smoothing, std::abs(d.x1 - source.x1));
    }
    // b is tentative on frame 3, its first.
    const std::vector<int64_t> ids = f <= 3 ? std::vector<int64_t>{1} : std::vector<int64_t>{1, 2};
    EXPECT_EQ(ids_of(out.get()), ids);
  }
  EXPECT_GT(largest_smoothing, 0.01) << "the boxes should be the Kalman filter's, not the input";
  EXPECT_EQ(stat(h, "frames"), 12u);
  EXPECT_EQ(stat(h, "tracked-frames"), 12u);
  EXPECT_EQ(stat(h, "tracks"), 2u);
  EXPECT_EQ(stat(h, "highest-id"), 2u);
  EXPECT_EQ(stat(h, "removed"), 1u);  // b on frame 3
}

// keep-untracked: the tentative b of frame 3 and a low-score box pass unchanged, without an id;
// other elements' regions are never touched.
TEST(YoloTracker, KeepUntrackedKeepsTheOthersWithoutAnId) {
  for (const bool keep : {false, true}) {
    SCOPED_TRACE(keep ? "keep-untracked" : "default");
    Harness h =
        tracker(std::string("tracker=bytetrack.yaml keep-untracked=") + (keep ? "true" : "false"));
    for (int f = 0; f < 4; ++f) {
      std::vector<Detection> in = scene(f);
      in.push_back({250, 100, 270, 130, 0.05f, 2, "c"});  // below track_low_thresh
      GstBuffer* buffer = frame_with(in, f);
      gst_buffer_add_video_region_of_interest_meta(buffer, "face", 5, 5, 10, 10);
      const Buffer out = push_pull(h, buffer);
      const std::vector<Detection> all =
          yolo::gst::read_roi_metas(out.get(), yolo::gst::RoiRegions::kAll);
      ASSERT_EQ(all.back().class_name, "face");  // another element's region, untouched
      const std::vector<Region> got = regions(out.get());
      if (f < 3) {
        ASSERT_EQ(got.size(), keep ? 2u : 1u);
        EXPECT_EQ(got[0].d.track_id, 1);
        if (keep) {
          EXPECT_EQ(got[1].d.track_id, 0);
          EXPECT_EQ(got[1].roi->id, -1);
          EXPECT_EQ(
              gst_video_region_of_interest_meta_get_param(got[1].roi, yolo::gst::kTrackingParams),
              nullptr);
          EXPECT_NEAR(got[1].d.x1, 250, 1e-3);  // the detector's box, unchanged
        }
      }
      if (f == 3) {
        EXPECT_EQ(got.size(), keep ? 3u : 1u);
      }
    }
  }
}

// Ids start again at 1 on STREAM_START, FLUSH_STOP, a changed SEGMENT and new frame size, not on
// a repeated segment or the same caps: b alone after the reset is the first object of a new run
// (id 1, confirmed at once).
TEST(YoloTracker, IdsStartAgainOnStreamStartFlushAndANewSegment) {
  const auto b_only = [](int f) {
    std::vector<Detection> d = scene(f);
    d.erase(d.begin());
    return d;
  };
  struct Case {
    const char* name;
    std::function<void(Harness&)> events;
    int64_t b_id;  // b's id after the events
  };
  const std::vector<Case> cases = {
      {"stream-start",
       [](Harness& h) {
         ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_stream_start("next")));
         push_segment(h);
       },
       1},
      {"flush",
       [](Harness& h) {
         ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_flush_start()));
         ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_flush_stop(TRUE)));
         push_segment(h);
       },
       1},
      {"new segment", [](Harness& h) { push_segment(h, 10 * GST_SECOND); }, 1},
      {"same segment", [](Harness& h) { push_segment(h); }, 2},
      {"same caps",
       [](Harness& h) {
         gst_harness_set_src_caps_str(h.get(), caps_string("BGR", kWidth, kHeight).c_str());
       },
       2},
      {"new frame size",
       [](Harness& h) {
         // The same size again after a change to another one: the change reset the ids.
         gst_harness_set_src_caps_str(h.get(), caps_string("BGR", 2 * kWidth, kHeight).c_str());
         gst_harness_set_src_caps_str(h.get(), caps_string("BGR", kWidth, kHeight).c_str());
       },
       1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Harness h = tracker("tracker=bytetrack.yaml");
    for (int f = 0; f < 6; ++f) push_pull(h, frame_with(scene(f), f));
    c.events(h);
    for (int f = 6; f < 9; ++f) {
      const Buffer out = push_pull(h, frame_with(b_only(f), f));
      EXPECT_EQ(ids_of(out.get()), (std::vector<int64_t>{c.b_id})) << "frame " << f;
    }
    EXPECT_EQ(stat(h, "highest-id"), static_cast<guint64>(c.b_id));
  }
}

// Frames the `yolo` element marked as not inferred pass untracked, so a new object is confirmed
// on the next inferred frame; without the marks the same empty frames would drop it.
TEST(YoloTracker, FramesTheDetectorSkippedAreNotTracked) {
  for (const bool marked : {true, false}) {
    SCOPED_TRACE(marked ? "marked" : "unmarked");
    Harness h = tracker("tracker=bytetrack.yaml");
    std::vector<int64_t> b_ids;
    for (int f = 0; f < 12; ++f) {
      const bool inferred = f % 2 == 0;  // inference-interval=2
      GstBuffer* in = frame_with(inferred ? scene(f) : std::vector<Detection>{}, f);
      if (marked) yolo::gst::mark_inference(in, inferred, f);
      const Buffer out = push_pull(h, in);
      ASSERT_EQ(yolo::gst::inference_mark(out.get()).has_value(), marked);
      for (const Detection& d : yolo::gst::read_roi_metas(out.get())) {
        if (d.class_name == "b") b_ids.push_back(d.track_id);
      }
    }
    if (marked) {
      EXPECT_EQ(b_ids, (std::vector<int64_t>{2, 2, 2})) << "b confirmed on frame 6, kept after";
      EXPECT_EQ(stat(h, "skipped-frames"), 6u);
      EXPECT_EQ(stat(h, "tracked-frames"), 6u);
    } else {
      EXPECT_TRUE(b_ids.empty()) << "a tentative track does not survive an empty frame";
      EXPECT_EQ(stat(h, "tracked-frames"), 12u);
    }
  }
}

// BoT-SORT's motion compensation gets the frame in every format: the element's boxes equal the
// library's given the same frame (BGR, or NV12/I420's luma plane), and differ from the library's
// without frames (the camera pans, so compensation moves the boxes).
TEST(YoloTracker, MotionCompensationSeesTheFrameInEveryFormat) {
  cv::Mat texture(kHeight + 40, kWidth + 200, CV_8UC3);
  cv::randu(texture, cv::Scalar::all(0), cv::Scalar::all(255));
  cv::GaussianBlur(texture, texture, cv::Size(7, 7), 2.0);
  const auto camera = [&](int f) {  // pans right 5 px and down 1 px a frame
    return texture(cv::Rect(5 * f, f, kWidth, kHeight)).clone();
  };
  // An object standing still in the world moves against the camera's pan.
  const auto world = [](int f) {
    const float x = 150.0f - 5.0f * static_cast<float>(f), y = 50.0f - static_cast<float>(f);
    return std::vector<Detection>{{x, y, x + 40, y + 50, 0.9f, 0, "a"}};
  };
  for (const std::string format : {"BGR", "RGBx", "NV12", "I420"}) {
    SCOPED_TRACE(format);
    Harness h = tracker("tracker=botsort.yaml", format);
    const auto config = yolo::tracking::load_tracker_config("botsort.yaml");
    yolo::tracking::Tracker with_frames(config), without_frames(config);
    float largest_compensation = 0;
    for (int f = 0; f < 10; ++f) {
      const cv::Mat bgr = camera(f);
      cv::Mat given = bgr;  // what the library gets: BGR, or the luma plane
      if (format == "NV12" || format == "I420")
        given = yolo::testing::bgr_to_format(bgr, format).rowRange(0, kHeight).clone();
      const auto in = tracker_input(world(f));
      const std::vector<Track> expected = with_frames.update(in, &given);
      const std::vector<Track> still = without_frames.update(in);
      const Buffer out = push_pull(h, frame_with(world(f), f, format, bgr));
      const std::vector<Region> got = regions(out.get());
      ASSERT_EQ(got.size(), expected.size()) << "frame " << f;
      ASSERT_EQ(still.size(), expected.size());
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_NEAR(got[i].d.x1, expected[i].x1, 1e-3) << "frame " << f;
        EXPECT_NEAR(got[i].d.y2, expected[i].y2, 1e-3) << "frame " << f;
        largest_compensation =
            std::max(largest_compensation, std::abs(expected[i].x1 - still[i].x1));
      }
    }
    EXPECT_GT(largest_compensation, 0.5) << "the pan should move the compensated boxes";
  }
}

// Frames without metas, thousands of metas and non-finite boxes.
TEST(YoloTracker, BadInputIsHandled) {
  Harness h = tracker("tracker=bytetrack.yaml");
  // A non-finite box is skipped by the tracker, and removed as not a track.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  GstBuffer* in = frame_with(scene(0), 0);
  GstVideoRegionOfInterestMeta* broken =
      gst_buffer_add_video_region_of_interest_meta(in, "a", 0, 0, 10, 10);
  gst_video_region_of_interest_meta_add_param(
      broken, gst_structure_new(yolo::gst::kDetectionParams, "confidence", G_TYPE_DOUBLE, 0.9,
                                "class-id", G_TYPE_INT, 0, "x_min", G_TYPE_DOUBLE, double(nan),
                                "y_min", G_TYPE_DOUBLE, 0.1, "x_max", G_TYPE_DOUBLE, 0.5, "y_max",
                                G_TYPE_DOUBLE, double(INFINITY), nullptr));
  // attach_roi_metas itself copes with NaN (the ROI rectangle becomes empty at 0).
  yolo::gst::attach_roi_metas(in, {{nan, nan, nan, 5, 0.9f, 0, "a"}}, kWidth, kHeight);
  const Buffer tracked = push_pull(h, in);
  EXPECT_EQ(ids_of(tracked.get()), (std::vector<int64_t>{1}));
  EXPECT_EQ(stat(h, "skipped-detections"), 2u);

  const Buffer empty = push_pull(h, frame_with({}, 1));
  ASSERT_TRUE(empty);
  EXPECT_TRUE(yolo::gst::read_roi_metas(empty.get()).empty());

  // 3000 objects on a grid: all tracked on the first frame after a reset, ids kept on the next.
  ASSERT_TRUE(gst_harness_push_event(h.get(), gst_event_new_stream_start("many")));
  push_segment(h);
  std::vector<Detection> many;
  for (int i = 0; i < 3000; ++i) {
    const float x = static_cast<float>(i % 60) * 5.0f, y = static_cast<float>(i / 60) * 3.0f;
    many.push_back({x, y, x + 4.0f, y + 2.5f, 0.9f, 0, "a"});
  }
  const auto start = std::chrono::steady_clock::now();
  for (int f = 0; f < 3; ++f) {
    const Buffer out = push_pull(h, frame_with(many, f));
    const std::vector<int64_t> ids = ids_of(out.get());
    ASSERT_EQ(ids.size(), many.size()) << "frame " << f;
    EXPECT_EQ(*std::max_element(ids.begin(), ids.end()), 3000);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 30.0);
  std::cout << "3 frames of 3000 detections: " << seconds << " s\n";

  // A broken detector: 1000 copies of one box, every one overlapping every other: one assignment
  // problem of 1000 x 1000 (measured 0.5 s a frame on 2 cores; 300 copies 25 ms, 2000 copies 4 s).
  const std::vector<Detection> same(1000, Detection{100, 50, 140, 90, 0.9f, 0, "a"});
  const auto start_same = std::chrono::steady_clock::now();
  size_t tracked_copies = 0;
  for (int f = 3; f < 6; ++f) {
    const Buffer out = push_pull(h, frame_with(same, f));
    ASSERT_TRUE(out);
    tracked_copies = ids_of(out.get()).size();
  }
  EXPECT_EQ(tracked_copies, same.size());  // tentative on frame 3, confirmed from frame 4
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_same).count();
  std::cout << "3 frames of 1000 identical detections: " << seconds << " s\n";
  EXPECT_LT(seconds, 30.0);
}

namespace {

// Runs `element` alone in a pipeline to READY and returns the error message (or "").
std::string error_going_ready(GstElement* element) {
  GstElement* pipeline = gst_pipeline_new(nullptr);
  gst_bin_add(GST_BIN(pipeline), element);
  const GstStateChangeReturn ret = gst_element_set_state(pipeline, GST_STATE_READY);
  std::string text;
  GstBus* bus = gst_element_get_bus(pipeline);
  if (GstMessage* msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
    GError* err = nullptr;
    gst_message_parse_error(msg, &err, nullptr);
    text = err->message;
    g_error_free(err);
    gst_message_unref(msg);
  }
  EXPECT_EQ(ret == GST_STATE_CHANGE_FAILURE, !text.empty()) << text;
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return text;
}

std::string error_with_tracker(const std::string& tracker) {
  GstElement* element = gst_element_factory_make("yolotracker", nullptr);
  g_object_set(element, "tracker", tracker.c_str(), nullptr);
  return error_going_ready(element);
}

}  // namespace

// A bad tracker value fails the change to READY with the library's message, naming the file and
// the key; the built-ins and a good file start.
TEST(YoloTracker, BadTrackerSettingsFailTheChangeToReady) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(YOLO_BINARY_DIR) / "test-tracker";
  fs::create_directories(dir);
  const fs::path typo = dir / "typo.yaml", range = dir / "range.yaml", good = dir / "good.yaml";
  std::ofstream(typo) << "tracker_type: bytetrack\ntrack_bufer: 20\n";
  std::ofstream(range) << "tracker_type: botsort\nmatch_thresh: 1.5\n";
  std::ofstream(good) << "tracker_type: bytetrack\ntrack_buffer: 60\n";

  std::string e = error_with_tracker(typo.string());
  EXPECT_NE(e.find(typo.string()), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key 'track_bufer' (did you mean 'track_buffer'?)"), std::string::npos)
      << e;
  e = error_with_tracker(range.string());
  EXPECT_NE(e.find("match_thresh: 1.5 is outside 0..1"), std::string::npos) << e;
  e = error_with_tracker("botsrot.yaml");
  EXPECT_NE(e.find("botsrot.yaml: no such file"), std::string::npos) << e;
  EXPECT_EQ(error_with_tracker("bytetrack.yaml"), "");
  EXPECT_EQ(error_with_tracker("botsort.yaml"), "");
  EXPECT_EQ(error_with_tracker(good.string()), "");
}

// The tracker property is read again at start when it changed in READY, and a change while
// playing is ignored (the running tracker keeps its settings).
TEST(YoloTracker, TrackerChangesTakeEffectAtStartOnly) {
  GstElement* element = gst_element_factory_make("yolotracker", nullptr);
  GstElement* pipeline = gst_pipeline_new(nullptr);
  gst_bin_add(GST_BIN(pipeline), element);
  ASSERT_EQ(gst_element_set_state(pipeline, GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
  g_object_set(element, "tracker", "no-such-tracker.yaml", nullptr);
  EXPECT_EQ(gst_element_set_state(pipeline, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);

  Harness h = tracker("tracker=bytetrack.yaml");
  GstElement* running = gst_harness_find_element(h.get(), "yolotracker");
  g_object_set(running, "tracker", "no-such-tracker.yaml", nullptr);
  gchar* now = nullptr;
  g_object_get(running, "tracker", &now, nullptr);
  EXPECT_STREQ(now, "bytetrack.yaml");
  g_free(now);
  gst_object_unref(running);
  EXPECT_EQ(ids_of(push_pull(h, frame_with(scene(0), 0)).get()), (std::vector<int64_t>{1}));
}

// Settings handed over as a value (yolo-monitor's way, #56): the structure round-trips every key,
// the element runs them without reading `tracker` (here a file that does not exist), and a
// structure that is not one, or holds values a tracker YAML could not, fails the change to READY
// naming the field.
TEST(YoloTracker, SettingsGivenAsAValueAreRunWithoutReadingAFile) {
  yolo::tracking::TrackerConfig c = yolo::tracking::load_tracker_config("botsort.yaml");
  c.track_buffer = 45;
  c.match_thresh = 0.7;
  c.gmc_method = yolo::tracking::GmcMethod::kNone;
  c.source = "a test";
  GstStructure* s = yolo::gst::tracker_settings_structure(c);
  const yolo::tracking::TrackerConfig back = yolo::gst::tracker_config_from_structure(s);
  EXPECT_EQ(back.type, c.type);
  EXPECT_EQ(back.track_buffer, 45);
  EXPECT_DOUBLE_EQ(back.match_thresh, 0.7);
  EXPECT_DOUBLE_EQ(back.track_high_thresh, c.track_high_thresh);
  EXPECT_DOUBLE_EQ(back.track_low_thresh, c.track_low_thresh);
  EXPECT_DOUBLE_EQ(back.new_track_thresh, c.new_track_thresh);
  EXPECT_EQ(back.fuse_score, c.fuse_score);
  EXPECT_EQ(back.gmc_method, yolo::tracking::GmcMethod::kNone);
  EXPECT_EQ(back.source, "a test");

  GstElement* element = gst_element_factory_make("yolotracker", nullptr);
  g_object_set(element, "tracker", "no-such-tracker.yaml", "settings", s, nullptr);
  Harness h(gst_harness_new_with_element(element, "sink", "src"));
  gst_object_unref(element);
  gst_harness_set_src_caps_str(h.get(), caps_string("BGR", kWidth, kHeight).c_str());
  EXPECT_EQ(ids_of(push_pull(h, frame_with(scene(0), 0)).get()), (std::vector<int64_t>{1}));

  GstStructure* bad = gst_structure_copy(s);
  gst_structure_set(bad, "match_thresh", G_TYPE_DOUBLE, 1.5, nullptr);
  EXPECT_THROW(yolo::gst::tracker_config_from_structure(bad), std::exception);
  GstElement* refused = gst_element_factory_make("yolotracker", nullptr);
  g_object_set(refused, "settings", bad, nullptr);
  EXPECT_EQ(gst_element_set_state(refused, GST_STATE_READY), GST_STATE_CHANGE_FAILURE);
  gst_element_set_state(refused, GST_STATE_NULL);
  gst_object_unref(refused);
  gst_structure_remove_field(bad, "track_buffer");
  try {
    yolo::gst::tracker_config_from_structure(bad);
    ADD_FAILURE() << "a structure without track_buffer was taken";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("track_buffer"), std::string::npos) << e.what();
  }
  gst_structure_free(bad);
  gst_structure_free(s);
}

// The meta layout of a tracked detection: roi->id and a "tracking" structure, read back as
// track_id (what yolo-monitor's JSON and yolooverlay's labels get); untracked ones have neither.
TEST(TrackedDetectionMeta, TrackIdRoundTrips) {
  GstBuffer* buffer = gst_buffer_new();
  Detection tracked{10.5f, 20.25f, 50, 60, 0.75f, 2, "c"};
  tracked.track_id = 7;
  Detection untracked{1, 2, 3, 4, 0.5f, 0, "a"};
  Detection huge = tracked;
  huge.track_id = int64_t{1} << 40;
  yolo::gst::attach_roi_metas(buffer, {tracked, untracked, huge}, kWidth, kHeight);

  const std::vector<Detection> back = yolo::gst::read_roi_metas(buffer);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[0].track_id, 7);
  EXPECT_EQ(back[1].track_id, 0);
  EXPECT_EQ(back[2].track_id, int64_t{1} << 40);
  // Without the frame size, the ROI rectangle (rounded outwards); with it, the exact box.
  EXPECT_EQ(back[0].x1, 10.0f);
  EXPECT_EQ(back[0].y1, 20.0f);
  const std::vector<Detection> exact =
      yolo::gst::read_roi_metas(buffer, yolo::gst::RoiRegions::kDetections, kWidth, kHeight);
  ASSERT_EQ(exact.size(), 3u);
  EXPECT_NEAR(exact[0].x1, 10.5, 1e-4);
  EXPECT_NEAR(exact[0].y1, 20.25, 1e-4);
  EXPECT_EQ(exact[0].track_id, 7);
  EXPECT_EQ(exact[0].class_name, "c");
  const std::vector<Region> r = regions(buffer);
  EXPECT_EQ(r[0].roi->id, 7);
  EXPECT_EQ(r[1].roi->id, -1);
  EXPECT_EQ(r[2].roi->id, G_MAXINT);   // the gint saturates; the structure has the whole id
  EXPECT_NEAR(r[0].d.x1, 10.5, 1e-4);  // roi_detection: the exact box
  EXPECT_EQ(r[0].d.track_id, 7);
  const GstStructure* s =
      gst_video_region_of_interest_meta_get_param(r[0].roi, yolo::gst::kTrackingParams);
  ASSERT_NE(s, nullptr);
  guint64 id = 0;
  EXPECT_TRUE(gst_structure_get_uint64(s, "track-id", &id));
  EXPECT_EQ(id, 7u);
  EXPECT_FALSE(gst_structure_has_field(s, "frames-tracked"));
  EXPECT_EQ(gst_video_region_of_interest_meta_get_param(r[1].roi, yolo::gst::kTrackingParams),
            nullptr);

  // set_roi_track updates the structure in place; an int64 id written by someone else reads too.
  yolo::gst::set_roi_track(r[0].roi, 9, 4);
  EXPECT_EQ(g_list_length(r[0].roi->params), 2u);
  EXPECT_EQ(yolo::gst::read_roi_metas(buffer)[0].track_id, 9);
  gst_video_region_of_interest_meta_add_param(
      r[1].roi,
      gst_structure_new(yolo::gst::kTrackingParams, "track-id", G_TYPE_INT64, gint64{12}, nullptr));
  EXPECT_EQ(yolo::gst::read_roi_metas(buffer)[1].track_id, 12);

  // The detections message carries track-id only for tracked detections.
  GstStructure* msg =
      yolo::gst::detections_structure("s", 0, 0, kWidth, kHeight, {tracked, untracked});
  const GValue* list = gst_structure_get_value(msg, "detections");
  const GstStructure* first = gst_value_get_structure(gst_value_list_get_value(list, 0));
  const GstStructure* second = gst_value_get_structure(gst_value_list_get_value(list, 1));
  EXPECT_TRUE(gst_structure_get_uint64(first, "track-id", &id));
  EXPECT_EQ(id, 7u);
  EXPECT_FALSE(gst_structure_has_field(second, "track-id"));
  gst_structure_free(msg);
  gst_buffer_unref(buffer);
}

// The inference marker survives a buffer copy and reads back; unmarked buffers have none.
TEST(TrackedDetectionMeta, InferenceMarkRoundTrips) {
  GstBuffer* buffer = gst_buffer_new();
  EXPECT_FALSE(yolo::gst::inference_mark(buffer).has_value());
  EXPECT_FALSE(yolo::gst::inference_frame(buffer).has_value());
  yolo::gst::mark_inference(buffer, false, 3);
  GstBuffer* copy = gst_buffer_copy(buffer);
  EXPECT_EQ(yolo::gst::inference_mark(copy), std::optional<bool>(false));
  EXPECT_EQ(yolo::gst::inference_frame(copy), std::optional<guint64>(3));
  gst_buffer_unref(copy);
  gst_buffer_unref(buffer);
  buffer = gst_buffer_new();
  yolo::gst::mark_inference(buffer, true, 4);
  EXPECT_EQ(yolo::gst::inference_mark(buffer), std::optional<bool>(true));
  gst_buffer_unref(buffer);
}
