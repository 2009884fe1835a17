// The `yolooverlay` element through GstHarness: `yolo ! yolooverlay` gives the same pixels as
// `yolo draw=true` in every format, other elements' regions are drawn by their type, the
// properties reach the drawing, tracked regions get their id and trails, and frames without
// regions pass through uncopied. (The untrained
// model's boxes cover the whole frame; test_yolo_detect compares the two on a trained model's
// boxes, whose sub-pixel edges are where the two could differ.)
#include <gst/check/gstharness.h>
#include <gst/video/gstvideometa.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

#include "gst_test_support.h"
#include "harness_frames.h"
#include "yolo/gst/detection_meta.h"
#include "yolo/runtime/annotate.h"

namespace {

using yolo::Detection;
using yolo::testing::Buffer;
using yolo::testing::buffer_bytes;
using yolo::testing::caps_string;
using yolo::testing::Harness;
using yolo::testing::make_frame;

::testing::Environment* const gst_env =
    ::testing::AddGlobalTestEnvironment(new yolo::testing::GstEnvironment);

// One frame of `format` through the bin `description`, returned with its ROI metas.
Buffer run_frame(const std::string& description, const std::string& format, int w, int h,
                 GstBuffer* frame = nullptr) {
  Harness harness(gst_harness_new_parse(description.c_str()));
  gst_harness_set_src_caps_str(harness.get(), caps_string(format, w, h).c_str());
  EXPECT_EQ(gst_harness_push(harness.get(), frame ? frame : make_frame(format, w, h)), GST_FLOW_OK);
  return Buffer(gst_harness_pull(harness.get()));
}

size_t bytes_changed(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  return std::inner_product(a.begin(), a.end(), b.begin(), size_t{0}, std::plus<>(),
                            std::not_equal_to<>());
}

// A BGR frame as a buffer, and the image it holds.
GstBuffer* bgr_buffer(const cv::Mat& bgr) {
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, bgr.total() * 3, nullptr);
  gst_buffer_fill(buffer, 0, bgr.data, bgr.total() * 3);
  return buffer;
}

cv::Mat bgr_of(GstBuffer* buffer, int w, int h) {
  cv::Mat image(h, w, CV_8UC3);
  gst_buffer_extract(buffer, 0, image.data, image.total() * 3);
  return image;
}

}  // namespace

TEST(YoloOverlay, DrawsWhatDrawTrueDrawsInEveryFormat) {
  const std::string yolo =
      "yolo model=" + yolo::testing::tiny_model().string() + " conf-threshold=0 max-detections=4";
  for (const std::string format : {"RGB", "BGR", "RGBx", "BGRx", "RGBA", "BGRA", "NV12", "I420"}) {
    SCOPED_TRACE(format);
    const Buffer drawn = run_frame(yolo + " draw=true", format, 96, 64);
    const Buffer overlaid = run_frame(yolo + " ! yolooverlay", format, 96, 64);
    ASSERT_TRUE(drawn && overlaid);
    ASSERT_EQ(yolo::gst::read_roi_metas(overlaid.get()).size(), 4u);
    const Buffer original(make_frame(format, 96, 64));
    EXPECT_GT(bytes_changed(buffer_bytes(original.get()), buffer_bytes(overlaid.get())), 50u)
        << "the overlay should change pixels";
    EXPECT_EQ(buffer_bytes(drawn.get()), buffer_bytes(overlaid.get()));
  }
}

TEST(YoloOverlay, DrawsOtherElementsRegionsByTheirType) {
  const int w = 160, h = 96;
  cv::Mat image(h, w, CV_8UC3, cv::Scalar(60, 60, 60));
  GstBuffer* in = bgr_buffer(image);
  // A detection as the yolo element attaches it, then a tracker's region without a score.
  Detection person{12.4f, 20.6f, 70.2f, 80.9f, 0.87f, 0, "person"};
  yolo::gst::attach_roi_metas(in, {person}, w, h);
  gst_buffer_add_video_region_of_interest_meta(in, "track-7", 90, 30, 50, 40);
  const Buffer out = run_frame("yolooverlay", "BGR", w, h, in);
  ASSERT_TRUE(out);

  Detection track{90, 30, 140, 70, std::numeric_limits<float>::quiet_NaN(), -1, "track-7"};
  cv::Mat expected = image.clone();
  yolo::annotate_detections(expected, {yolo::gst::as_roi_boxes({person}, w, h)[0], track}, {});
  const cv::Mat got = bgr_of(out.get(), w, h);
  EXPECT_EQ(cv::norm(got, expected, cv::NORM_INF), 0.0);
  EXPECT_GT(cv::norm(got, image, cv::NORM_L1), 0.0);
  EXPECT_EQ(yolo::detection_label(track, {}), "track-7");  // no "nan" in the tab
}

TEST(YoloOverlay, PropertiesReachTheDrawing) {
  const int w = 160, h = 96;
  const cv::Mat image(h, w, CV_8UC3, cv::Scalar(60, 60, 60));
  const Detection box{20, 20, 100, 80, 0.5f, 2, "c"};
  yolo::AnnotateOptions o;
  o.show_labels = false;
  o.line_width = 5;
  GstBuffer* in = bgr_buffer(image);
  yolo::gst::attach_roi_metas(in, {box}, w, h);
  const Buffer out = run_frame("yolooverlay show-labels=false line-width=5", "BGR", w, h, in);
  cv::Mat expected = image.clone();
  yolo::annotate_detections(expected, {box}, o);
  EXPECT_EQ(cv::norm(bgr_of(out.get(), w, h), expected, cv::NORM_INF), 0.0);
}

TEST(YoloOverlay, FramesWithoutRegionsPassUncopied) {
  GstBuffer* in = make_frame("I420", 96, 64);
  const std::vector<uint8_t> before = buffer_bytes(in);
  GstMemory* memory = gst_buffer_peek_memory(in, 0);
  // Held by the test too, so the element gets a buffer it may not write: drawing would need a
  // copy of the pixels, and there is nothing to draw.
  const Buffer held(gst_buffer_ref(in));
  const Buffer out = run_frame("yolooverlay", "I420", 96, 64, in);
  ASSERT_TRUE(out);
  EXPECT_EQ(gst_buffer_peek_memory(out.get(), 0), memory);
  EXPECT_EQ(buffer_bytes(out.get()), before);
}

TEST(YoloOverlay, OddSizedYuvFramesAreRefused) {
  Harness harness(gst_harness_new("yolooverlay"));
  gst_harness_set_src_caps_str(harness.get(), caps_string("NV12", 95, 64).c_str());
  GstBuffer* frame = gst_buffer_new_allocate(nullptr, 95 * 64 * 2, nullptr);
  EXPECT_NE(gst_harness_push(harness.get(), frame), GST_FLOW_OK);
}

namespace {

// A tracked detection (track 4, class 1) whose box moves right 8 px a frame.
Detection moving_track(int frame) {
  const float x = 10.0f + 8.0f * static_cast<float>(frame);
  Detection d{x, 20.5f, x + 30.0f, 60.0f, 0.8f, 1, "b"};
  d.track_id = 4;
  return d;
}

void push_segment(GstHarness* h) {
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  ASSERT_TRUE(gst_harness_push_event(h, gst_event_new_segment(&segment)));
}

}  // namespace

// trails=3: a line through the centres of the track's last 3 boxes, in its class colour and the
// box line width, behind the box and its "id:4 b 0.80" label; after a stream-start (ids start
// again upstream) the trail starts over.
TEST(YoloOverlay, TrailsFollowTrackedRegions) {
  const int w = 160, h = 96;
  const cv::Mat image(h, w, CV_8UC3, cv::Scalar(60, 60, 60));
  Harness harness(gst_harness_new_parse("yolooverlay trails=3"));
  gst_harness_set_src_caps_str(harness.get(), caps_string("BGR", w, h).c_str());
  std::vector<cv::Point> centres;
  for (int f = 0; f < 8; ++f) {
    SCOPED_TRACE("frame " + std::to_string(f));
    if (f == 5) {
      ASSERT_TRUE(gst_harness_push_event(harness.get(), gst_event_new_stream_start("next")));
      push_segment(harness.get());
      centres.clear();
    }
    GstBuffer* in = bgr_buffer(image);
    yolo::gst::attach_roi_metas(in, {moving_track(f)}, w, h);
    ASSERT_EQ(gst_harness_push(harness.get(), in), GST_FLOW_OK);
    const Buffer out(gst_harness_pull(harness.get()));
    ASSERT_TRUE(out);

    const Detection box = yolo::gst::as_roi_boxes({moving_track(f)}, w, h)[0];
    centres.push_back({cvRound((box.x1 + box.x2) / 2), cvRound((box.y1 + box.y2) / 2)});
    if (centres.size() > 3) centres.erase(centres.begin());
    cv::Mat expected = image.clone();
    cv::polylines(expected, centres, false, yolo::class_colour(1), yolo::default_line_width(h, w));
    yolo::annotate_detections(expected, {box}, {});
    EXPECT_EQ(yolo::detection_label(box, {}), "id:4 b 0.80");
    EXPECT_EQ(cv::norm(bgr_of(out.get(), w, h), expected, cv::NORM_INF), 0.0);
  }
}

// Trails are drawn on YUV frames too, and trails=0 draws none.
TEST(YoloOverlay, TrailsDrawOnYuvFrames) {
  std::vector<uint8_t> last[2];
  for (const int trails : {0, 6}) {
    Harness harness(
        gst_harness_new_parse(("yolooverlay trails=" + std::to_string(trails)).c_str()));
    gst_harness_set_src_caps_str(harness.get(), caps_string("NV12", 96, 64).c_str());
    for (int f = 0; f < 5; ++f) {
      GstBuffer* in = make_frame("NV12", 96, 64, f);
      yolo::gst::attach_roi_metas(in, {moving_track(f)}, 96, 64);
      ASSERT_EQ(gst_harness_push(harness.get(), in), GST_FLOW_OK);
      const Buffer out(gst_harness_pull(harness.get()));
      last[trails > 0] = buffer_bytes(out.get());
    }
  }
  EXPECT_GT(bytes_changed(last[0], last[1]), 20u);
}
