// The monitor's pipeline descriptions: the media library's source (whose strings per uri kind
// tests/media checks) with the monitor's tail, and every kind parses with gst_parse_launch into a
// pipeline that has the appsink the supervisor looks for.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <memory>

#include "yolo/monitor/pipeline_description.h"

using yolo::monitor::SourceKind;
using yolo::monitor::StreamConfig;

namespace {

StreamConfig stream(const std::string& uri) {
  StreamConfig s;
  s.id = "cam";
  s.uri = uri;
  s.kind = *yolo::monitor::classify_uri(uri);
  return s;
}

class SourceDescription : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }

  // Parses with the flags the supervisor uses; the error text on failure.
  static void expect_parses(const std::string& description) {
    GError* error = nullptr;
    std::unique_ptr<GstElement, decltype(&gst_object_unref)> p(
        gst_parse_launch_full(description.c_str(), nullptr, GST_PARSE_FLAG_FATAL_ERRORS, &error),
        &gst_object_unref);
    ASSERT_EQ(error, nullptr) << description << ": " << error->message;
    ASSERT_TRUE(p && GST_IS_PIPELINE(p.get())) << description;
    GstElement* sink = gst_bin_get_by_name(GST_BIN(p.get()), yolo::monitor::kAppSinkName);
    ASSERT_NE(sink, nullptr) << description;
    gst_object_unref(sink);
  }
};

}  // namespace

// The whole pipeline: leaky one-buffer queue after the decoder, BGR, the owner's fragment, sink.
TEST_F(SourceDescription, WholePipeline) {
  const std::string d = yolo::monitor::pipeline_description(stream("rtsp://cam/x"), {},
                                                            "yolo model=m.pt stream-id=cam");
  // The camera is opened exactly as `yolo-trainer predict` opens it.
  EXPECT_EQ(d.rfind(yolo::media::source_description(SourceKind::kRtsp, "rtsp://cam/x", {}), 0), 0u);
  EXPECT_EQ(d,
            "rtspsrc location=\"rtsp://cam/x\" protocols=tcp latency=200 ! decodebin ! queue "
            "name=leaky leaky=downstream max-size-buffers=1 max-size-bytes=0 max-size-time=0 ! "
            "videoconvert "
            "! video/x-raw,format=BGR ! yolo model=m.pt stream-id=cam ! appsink name=sink "
            "sync=false max-buffers=1 drop=true");
  // Files are paced by clocksync; no inference fragment means straight to the sink.
  const std::string f = yolo::monitor::pipeline_description(stream("/v/a.mp4"), {}, "");
  EXPECT_NE(f.find("decodebin ! clocksync ! queue name=leaky leaky=downstream"), std::string::npos)
      << f;
  EXPECT_NE(f.find("format=BGR ! appsink name=sink"), std::string::npos) << f;
}

// Every kind parses, with identity standing in for the yolo element.
TEST_F(SourceDescription, EveryKindParses) {
  for (const char* uri : {"rtsp://127.0.0.1:8554/cam", "/tmp/a b.mp4", "file:///tmp/x.mkv",
                          "/dev/video0", "https://127.0.0.1/x.mjpg", "weird \"name\" ! x.mp4"}) {
    expect_parses(yolo::monitor::pipeline_description(stream(uri), {}, "identity name=infer"));
    expect_parses(yolo::monitor::pipeline_description(stream(uri), {}, ""));
  }
}
