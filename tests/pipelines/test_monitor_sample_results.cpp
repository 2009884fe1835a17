// Samples as the `yolo` element will hand them over (BGR frames with ROI metas carrying a
// "detection" structure) become FrameResults with source-frame boxes, and BGR Mats that honour
// the row stride.
#include <gst/gst.h>
#include <gst/video/gstvideometa.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>

#include "test_files.h"
#include "yolo/gst/detection_meta.h"
#include "yolo/monitor/jsonl_writer.h"
#include "yolo/monitor/monitor_config.h"
#include "yolo/monitor/result_sink.h"
#include "yolo/monitor/sample_results.h"
#include "yolo/monitor/snapshot_archive.h"
#include "yolo/serving/events_store.h"
#include "yolo/serving/metrics_registry.h"
#include "yolo/serving/results_store.h"
#include "yolo/serving/snapshot_store.h"

namespace {

struct SampleDeleter {
  void operator()(GstSample* s) const { gst_sample_unref(s); }
};
using SamplePtr = std::unique_ptr<GstSample, SampleDeleter>;

// A w x h BGR buffer with rows padded to `stride` bytes; pixel (x, y) = (x, y, 7).
SamplePtr bgr_sample(int w, int h, int stride, bool with_detections) {
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, static_cast<gsize>(stride * h), nullptr);
  GstMapInfo map;
  gst_buffer_map(buffer, &map, GST_MAP_WRITE);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      guint8* p = map.data + y * stride + x * 3;
      p[0] = static_cast<guint8>(x);
      p[1] = static_cast<guint8>(y);
      p[2] = 7;
    }
  }
  gst_buffer_unmap(buffer, &map);
  GST_BUFFER_PTS(buffer) = 2 * GST_SECOND;
  gsize offset[GST_VIDEO_MAX_PLANES] = {0};
  gint strides[GST_VIDEO_MAX_PLANES] = {stride};
  gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_BGR, w, h, 1,
                                 offset, strides);
  if (with_detections) {
    auto* person = gst_buffer_add_video_region_of_interest_meta(buffer, "person", 4, 5, 10, 20);
    gst_video_region_of_interest_meta_add_param(
        person, gst_structure_new("detection", "confidence", G_TYPE_DOUBLE, 0.875, "class-id",
                                  G_TYPE_INT, 0, "label", G_TYPE_STRING, "person", nullptr));
    auto* car = gst_buffer_add_video_region_of_interest_meta(buffer, "car", 1, 2, 3, 4);
    gst_video_region_of_interest_meta_add_param(
        car, gst_structure_new("detection", "confidence", G_TYPE_DOUBLE, 0.5, "class-id",
                               G_TYPE_INT, 2, nullptr));  // no label: the ROI type names it
    gst_buffer_add_video_region_of_interest_meta(buffer, "face", 0, 0, 1, 1);  // not a detection
  }
  GstCaps* caps =
      gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, "BGR", "width", G_TYPE_INT, w,
                          "height", G_TYPE_INT, h, "framerate", GST_TYPE_FRACTION, 15, 1, nullptr);
  SamplePtr sample(gst_sample_new(buffer, caps, nullptr, nullptr));
  gst_caps_unref(caps);
  gst_buffer_unref(buffer);
  return sample;
}

class SampleResults : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

}  // namespace

// ROI metas with a "detection" structure become detections in frame pixels; others are skipped.
TEST_F(SampleResults, DetectionsFromRoiMetas) {
  const auto sample = bgr_sample(32, 24, 100, true);
  const auto r = yolo::monitor::frame_result_from_sample(sample.get(), "cam1", 41);
  EXPECT_EQ(r.stream_id, "cam1");
  EXPECT_EQ(r.frame, 41);
  EXPECT_EQ(r.pts_ns, 2000000000);
  EXPECT_EQ(r.width, 32);
  EXPECT_EQ(r.height, 24);
  ASSERT_EQ(r.detections.size(), 2u);
  const auto& p = r.detections[0];
  EXPECT_EQ(p.class_name, "person");
  EXPECT_EQ(p.class_id, 0);
  EXPECT_FLOAT_EQ(p.confidence, 0.875f);
  EXPECT_FLOAT_EQ(p.x1, 4);
  EXPECT_FLOAT_EQ(p.y1, 5);
  EXPECT_FLOAT_EQ(p.x2, 14);
  EXPECT_FLOAT_EQ(p.y2, 25);
  EXPECT_EQ(r.detections[1].class_name, "car");
  EXPECT_EQ(r.detections[1].class_id, 2);
  EXPECT_EQ(yolo::monitor::frame_result_from_sample(bgr_sample(8, 8, 24, false).get(), "c", 0)
                .detections.size(),
            0u);
}

// The Mat views the pixels with the buffer's padded stride.
TEST_F(SampleResults, BgrFrameHonoursStride) {
  const auto sample = bgr_sample(32, 24, 100, false);
  bool called = false;
  EXPECT_TRUE(yolo::monitor::with_bgr_frame(sample.get(), [&](const cv::Mat& m) {
    called = true;
    EXPECT_EQ(m.cols, 32);
    EXPECT_EQ(m.rows, 24);
    EXPECT_EQ(m.step[0], 100u);
    EXPECT_EQ(m.at<cv::Vec3b>(23, 31), cv::Vec3b(31, 23, 7));
  }));
  EXPECT_TRUE(called);
  // A format the element does not pass on: refused without calling.
  GstCaps* caps = gst_caps_from_string("video/x-raw,format=GRAY8,width=2,height=2");
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, 16, nullptr);
  SamplePtr grey(gst_sample_new(buffer, caps, nullptr, nullptr));
  gst_caps_unref(caps);
  gst_buffer_unref(buffer);
  EXPECT_FALSE(yolo::monitor::with_bgr_frame(grey.get(), [](const cv::Mat&) { FAIL(); }));
}

// The monitor's sink gets the decoder's YUV (or the element's other formats): a snapshot
// converts it, YUV with the caps' colours (grey stays grey, a full-range white is 255).
TEST_F(SampleResults, OtherFormatsAreConvertedForSnapshots) {
  auto sample_of = [](const char* caps_text, const std::vector<uint8_t>& bytes) {
    GstCaps* caps = gst_caps_from_string(caps_text);
    GstBuffer* buffer = gst_buffer_new_allocate(nullptr, bytes.size(), nullptr);
    gst_buffer_fill(buffer, 0, bytes.data(), bytes.size());
    SamplePtr s(gst_sample_new(buffer, caps, nullptr, nullptr));
    gst_caps_unref(caps);
    gst_buffer_unref(buffer);
    return s;
  };
  // An I420 frame of flat Y, U, V laid out as GStreamer lays out these caps.
  auto flat_i420 = [](const char* caps_text, uint8_t y, uint8_t uv) {
    GstCaps* caps = gst_caps_from_string(caps_text);
    GstVideoInfo info;
    EXPECT_TRUE(gst_video_info_from_caps(&info, caps));
    gst_caps_unref(caps);
    std::vector<uint8_t> bytes(GST_VIDEO_INFO_SIZE(&info), uv);
    std::fill_n(bytes.begin() + static_cast<std::ptrdiff_t>(GST_VIDEO_INFO_PLANE_OFFSET(&info, 0)),
                GST_VIDEO_INFO_PLANE_STRIDE(&info, 0) * GST_VIDEO_INFO_HEIGHT(&info), y);
    return bytes;
  };
  auto centre = [](GstSample* s) {
    cv::Vec3b got(1, 2, 3);
    EXPECT_TRUE(yolo::monitor::with_bgr_frame(s, [&](const cv::Mat& m) {
      EXPECT_EQ(m.type(), CV_8UC3);
      got = m.at<cv::Vec3b>(1, 1);
    }));
    return got;
  };
  // Y 126, U = V = 128: BT.601 limited grey 128 (no colorimetry: FFmpeg's default).
  const char* grey = "video/x-raw,format=I420,width=8,height=8";
  EXPECT_EQ(centre(sample_of(grey, flat_i420(grey, 126, 128)).get()), cv::Vec3b(128, 128, 128));
  // An odd size (no `yolo` element to refuse it): chroma planes rounded up, converted all the same.
  const char* odd = "video/x-raw,format=I420,width=7,height=5";
  EXPECT_EQ(centre(sample_of(odd, flat_i420(odd, 126, 128)).get()), cv::Vec3b(128, 128, 128));
  const char* full = "video/x-raw,format=I420,width=8,height=8,colorimetry=1:4:7:1";
  EXPECT_EQ(centre(sample_of(full, flat_i420(full, 255, 128)).get()), cv::Vec3b(255, 255, 255));
  // 4x4 RGBx of R=10, G=20, B=30.
  std::vector<uint8_t> rgbx;
  for (int i = 0; i < 16; ++i) rgbx.insert(rgbx.end(), {10, 20, 30, 0});
  EXPECT_EQ(centre(sample_of("video/x-raw,format=RGBx,width=4,height=4", rgbx).get()),
            cv::Vec3b(30, 20, 10));
}

// The service's sample handler: each sample is published (frame numbers per stream), written as
// a JSON line, refreshes the snapshot and feeds the archive; removal forgets the stream; a
// failing output is counted, not thrown into the pipeline.
TEST_F(SampleResults, ResultSinkFeedsEveryOutput) {
  namespace fs = std::filesystem;
  yolo::testing::TempDir dir("result_sink");
  yolo::ResultsStore store;
  yolo::SnapshotStore snapshots;
  yolo::monitor::JsonlWriter jsonl({dir.path / "r.jsonl", 0, 1});
  yolo::monitor::SnapshotArchive archive({dir.path / "snaps", std::chrono::hours(1), 5});
  yolo::monitor::ResultSink sink({std::chrono::milliseconds(0)}, store, &snapshots, &jsonl,
                                 &archive);
  for (int i = 0; i < 3; ++i) sink.on_sample("cam1", bgr_sample(32, 24, 96, true).get());
  sink.on_sample("cam2", bgr_sample(8, 8, 24, false).get());

  const auto latest = store.latest("cam1");
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->frame, 2);
  EXPECT_EQ(latest->seq, 3u);
  EXPECT_EQ(latest->detections.size(), 2u);
  EXPECT_EQ(store.latest("cam2")->frame, 0);
  std::ifstream lines(dir.path / "r.jsonl");
  int n = 0;
  for (std::string line; std::getline(lines, line);) ++n;
  EXPECT_EQ(n, 4);
  EXPECT_TRUE(snapshots.has("cam1"));
  // One archived snapshot per stream: the interval (an hour) has not passed for the next ones.
  EXPECT_EQ(
      std::distance(fs::directory_iterator(dir.path / "snaps" / "cam1"), fs::directory_iterator()),
      1);

  sink.on_removed("cam1");
  EXPECT_FALSE(store.has_stream("cam1"));
  EXPECT_FALSE(snapshots.has("cam1"));
  sink.on_sample("cam1", bgr_sample(32, 24, 96, true).get());
  EXPECT_EQ(store.latest("cam1")->frame, 0);  // counting restarts for a re-added stream

  jsonl.close();  // writes now fail: counted, the sample still reaches the store
  EXPECT_NO_THROW(sink.on_sample("cam2", bgr_sample(8, 8, 24, false).get()));
  EXPECT_EQ(sink.output_errors(), 1u);
  EXPECT_EQ(store.latest("cam2")->frame, 1);
}

namespace {

// A 64x48 BGR frame with one person tracked as `id`, its 10x10 box's centre at (cx, 24).
SamplePtr tracked_sample(int64_t id, int cx) {
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, 64 * 48 * 3, nullptr);
  gst_buffer_memset(buffer, 0, 0, 64 * 48 * 3);
  GST_BUFFER_PTS(buffer) = 0;
  yolo::Detection person{
      static_cast<float>(cx - 5), 19, static_cast<float>(cx + 5), 29, 0.9f, 0, "person"};
  person.track_id = id;
  yolo::gst::attach_roi_metas(buffer, {person}, 64, 48);
  GstCaps* caps = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, "BGR", "width",
                                      G_TYPE_INT, 64, "height", G_TYPE_INT, 48, nullptr);
  SamplePtr sample(gst_sample_new(buffer, caps, nullptr, nullptr));
  gst_caps_unref(caps);
  gst_buffer_unref(buffer);
  return sample;
}

}  // namespace

// A stream with lines and zones: its tracked results run through the analytics, whose events go
// to the events store (with seq), the counts and the Prometheus series; a rebuilt pipeline (ids
// start again) makes every track leave its zones with reason "reset", and the totals stay.
TEST_F(SampleResults, ResultSinkRunsTheAnalyticsAndResetsThemOnARebuild) {
  yolo::ResultsStore store;
  yolo::EventsStore events;
  yolo::MetricsRegistry metrics;
  yolo::monitor::ResultSink sink({std::chrono::milliseconds(0)}, store, nullptr, nullptr, nullptr,
                                 &events, &metrics);
  yolo::monitor::StreamConfig cam;
  cam.id = "cam";
  cam.analytics = yolo::analytics::parse_analytics(
      YAML::Load("lines: [{name: door, points: [[32, 0], [32, 48]]}]\n"
                 "zones: [{name: left, points: [[0, 0], [30, 0], [30, 48], [0, 48]]}]"),
      "test");
  sink.on_pipeline(cam);
  ASSERT_TRUE(events.has_stream("cam"));  // known before its first event
  sink.on_sample("cam", tracked_sample(7, 10).get());
  sink.on_sample("cam", tracked_sample(7, 40).get());  // through the door, out of the zone
  sink.on_sample("cam", tracked_sample(7, 10).get());  // back: counted once already; re-enters
  sink.on_pipeline(cam);                               // the camera dropped and came back
  const std::vector<nlohmann::json> got = events.wait_since("cam", 0, std::chrono::seconds(0));
  std::vector<std::string> kinds;
  for (const auto& e : got) kinds.push_back(e["type"].get<std::string>());
  EXPECT_EQ(kinds, (std::vector<std::string>{"zone_entered", "line_crossed", "zone_exited",
                                             "zone_entered", "zone_exited"}));
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[1]["direction"], "in");
  EXPECT_EQ(got[2]["reason"], "left");
  EXPECT_EQ(got[4]["reason"], "reset");
  EXPECT_EQ(got[4]["seq"], 5);
  const nlohmann::json counts = events.counts("cam").value();
  EXPECT_EQ(counts["lines"][0]["in"], 1);
  EXPECT_EQ(counts["zones"][0]["entries"], 2);
  EXPECT_EQ(counts["zones"][0]["occupancy"], 0);
  EXPECT_EQ(counts["geometry"]["lines"][0]["points"][0][0], 32.0);
  const std::string text = metrics.render();
  EXPECT_NE(text.find("yolo_line_crossings_total{stream=\"cam\",line=\"door\",class=\"person\","
                      "direction=\"in\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("yolo_zone_occupancy{stream=\"cam\",zone=\"left\"} 0"), std::string::npos);

  // A reload with other lines makes new analytics (their counts start at 0); one without any
  // takes the stream's counts and events off the store.
  yolo::monitor::StreamConfig moved = cam;
  moved.analytics_keys = {{"lines", "moved"}};
  moved.analytics = yolo::analytics::parse_analytics(
      YAML::Load("lines: [{name: door, points: [[16, 0], [16, 48]]}]"), "test");
  sink.on_pipeline(moved);
  EXPECT_EQ(events.counts("cam").value()["lines"][0]["in"], 0);
  yolo::monitor::StreamConfig none = cam;
  none.analytics.reset();
  sink.on_pipeline(none);
  EXPECT_FALSE(events.has_stream("cam"));
  sink.on_pipeline(cam);

  // A stream without lines or zones has no analytics; removing a stream drops its events.
  yolo::monitor::StreamConfig plain;
  plain.id = "plain";
  sink.on_pipeline(plain);
  sink.on_sample("plain", tracked_sample(1, 10).get());
  EXPECT_FALSE(events.has_stream("plain"));
  sink.on_removed("cam");
  EXPECT_FALSE(events.has_stream("cam"));
}
