// Pipeline descriptions per uri kind: the exact strings, and that every one parses with
// gst_parse_launch into a pipeline that has the appsink the supervisor looks for.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <memory>

#include "yolo/monitor/source_description.h"

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

// rtsp: TCP and a bounded jitterbuffer by default; auto transport drops protocols=.
TEST_F(SourceDescription, Rtsp) {
  yolo::monitor::SourceOptions o;
  EXPECT_EQ(yolo::monitor::source_description(stream("rtsp://10.0.0.5:554/live?ch=1"), o),
            "rtspsrc location=\"rtsp://10.0.0.5:554/live?ch=1\" protocols=tcp latency=200 ! "
            "decodebin");
  o.rtsp_tcp = false;
  o.rtsp_latency = std::chrono::milliseconds(50);
  EXPECT_EQ(yolo::monitor::source_description(stream("rtsp://cam/x"), o),
            "rtspsrc location=\"rtsp://cam/x\" latency=50 ! decodebin");
}

// The whole pipeline: leaky one-buffer queue after the decoder, BGR, the owner's fragment, sink.
TEST_F(SourceDescription, WholePipeline) {
  const std::string d = yolo::monitor::pipeline_description(stream("rtsp://cam/x"), {},
                                                            "yolo model=m.pt stream-id=cam");
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

// Other kinds, file:// decoding, and quoting of odd characters.
TEST_F(SourceDescription, OtherKindsAndQuoting) {
  const yolo::monitor::SourceOptions o;
  EXPECT_EQ(yolo::monitor::source_description(stream("/dev/video2"), o),
            "v4l2src device=\"/dev/video2\" ! decodebin");
  EXPECT_EQ(yolo::monitor::source_description(stream("http://cam/video.mjpg"), o),
            "souphttpsrc location=\"http://cam/video.mjpg\" ! decodebin");
  EXPECT_EQ(yolo::monitor::source_description(stream("file:///srv/my%20video.mp4"), o),
            "filesrc location=\"/srv/my video.mp4\" ! decodebin");
  EXPECT_EQ(yolo::monitor::source_description(stream("clips/a \"b\" ! c.mp4"), o),
            "filesrc location=\"clips/a \\\"b\\\" ! c.mp4\" ! decodebin");
}

// Every kind parses, with identity standing in for the yolo element.
TEST_F(SourceDescription, EveryKindParses) {
  for (const char* uri : {"rtsp://127.0.0.1:8554/cam", "/tmp/a b.mp4", "file:///tmp/x.mkv",
                          "/dev/video0", "https://127.0.0.1/x.mjpg", "weird \"name\" ! x.mp4"}) {
    expect_parses(yolo::monitor::pipeline_description(stream(uri), {}, "identity name=infer"));
    expect_parses(yolo::monitor::pipeline_description(stream(uri), {}, ""));
  }
}
