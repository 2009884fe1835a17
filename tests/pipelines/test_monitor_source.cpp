// The monitor's pipeline descriptions: the media library's source (whose strings per uri kind
// tests/media checks) with the monitor's tail, and every kind parses with gst_parse_launch into a
// pipeline that has the appsink the supervisor looks for. The inference elements are made from
// typed settings: values reach the element unchanged, and what it cannot take is named.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "yolo/monitor/pipeline_description.h"

using yolo::monitor::ElementSpec;
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

// The whole pipeline: leaky one-buffer queue after the decoder, the decoder's own YUV (or a
// format the element takes) into the owner's fragment, then the sink.
TEST_F(SourceDescription, WholePipeline) {
  const std::string d = yolo::monitor::pipeline_description(stream("rtsp://cam/x"), {},
                                                            "yolo model=m.pt stream-id=cam");
  // The camera is opened exactly as `yolo-trainer predict` opens it.
  EXPECT_EQ(d.rfind(yolo::media::source_description(SourceKind::kRtsp, "rtsp://cam/x", {}), 0), 0u);
  EXPECT_EQ(d,
            "rtspsrc location=\"rtsp://cam/x\" protocols=tcp latency=200 ! decodebin ! queue "
            "name=leaky leaky=downstream max-size-buffers=1 max-size-bytes=0 max-size-time=0 ! "
            "videoconvert ! video/x-raw,format={ I420, NV12, BGR, BGRx, BGRA, RGB, RGBx, RGBA } "
            "! yolo model=m.pt stream-id=cam ! appsink name=sink sync=false max-buffers=1 "
            "drop=true");
  // Files are paced by clocksync; no inference fragment means straight to the sink.
  const std::string f = yolo::monitor::pipeline_description(stream("/v/a.mp4"), {}, "");
  EXPECT_NE(f.find("decodebin ! clocksync ! queue name=leaky leaky=downstream"), std::string::npos)
      << f;
  EXPECT_NE(f.find("RGBA } ! appsink name=sink"), std::string::npos) << f;
}

// Every kind parses, with identity standing in for the yolo element.
TEST_F(SourceDescription, EveryKindParses) {
  for (const char* uri : {"rtsp://127.0.0.1:8554/cam", "/tmp/a b.mp4", "file:///tmp/x.mkv",
                          "/dev/video0", "https://127.0.0.1/x.mjpg", "weird \"name\" ! x.mp4"}) {
    expect_parses(yolo::monitor::pipeline_description(stream(uri), {}, "identity name=infer"));
    expect_parses(yolo::monitor::pipeline_description(stream(uri), {}, ""));
  }
}

// A StreamPipeline parses the description without inference; its printed description has the
// inference's text in front of the appsink, and two pipelines differ when their inference does.
TEST_F(SourceDescription, StreamPipelineKeepsTheInferenceTyped) {
  const StreamConfig s = stream("rtsp://cam/x");
  const std::vector<ElementSpec> inference = {{"identity", "infer", {{"silent", true}}}};
  const auto p = yolo::monitor::stream_pipeline(s, {}, inference);
  EXPECT_EQ(p.launch, yolo::monitor::pipeline_description(s, {}, ""));
  EXPECT_EQ(p.inference, inference);
  EXPECT_EQ(p.description,
            yolo::monitor::pipeline_description(s, {}, "identity name=\"infer\" silent=true"));
  expect_parses(p.description);
  EXPECT_EQ(p, yolo::monitor::stream_pipeline(s, {}, inference));
  EXPECT_NE(p, yolo::monitor::stream_pipeline(s, {}, {{"identity", "infer", {{"silent", false}}}}));
  const yolo::monitor::StreamPipeline text_only(std::string("videotestsrc ! appsink name=sink"));
  EXPECT_EQ(text_only.description, text_only.launch);
  EXPECT_TRUE(text_only.inference.empty());
}

// Typed values reach the instance as they are: a string with quotes, spaces and "!" needs no
// escaping; an int becomes the property's guint, a double its gfloat.
TEST_F(SourceDescription, MakeElementSetsTypedProperties) {
  const std::string path = "/tmp/weird \"name\" ! x.mp4";
  std::string error;
  auto src = yolo::monitor::make_element({"filesrc", "src", {{"location", path}}}, error);
  ASSERT_TRUE(src) << error;
  gchar* location = nullptr;
  g_object_get(src.get(), "location", &location, nullptr);
  EXPECT_EQ(std::string(location ? location : ""), path);
  g_free(location);
  EXPECT_STREQ(GST_ELEMENT_NAME(src.get()), "src");

  auto identity = yolo::monitor::make_element(
      {"identity", "", {{"sleep-time", 5u}, {"datarate", 3}, {"drop-probability", 0.5}}}, error);
  ASSERT_TRUE(identity) << error;
  guint sleep_time = 0;
  gint datarate = 0;
  gfloat drop = 0;
  g_object_get(identity.get(), "sleep-time", &sleep_time, "datarate", &datarate, "drop-probability",
               &drop, nullptr);
  EXPECT_EQ(sleep_time, 5u);
  EXPECT_EQ(datarate, 3);
  EXPECT_FLOAT_EQ(drop, 0.5f);
  auto queue = yolo::monitor::make_element({"queue", "", {{"max-size-buffers", 2}}}, error);
  ASSERT_TRUE(queue) << error;
  guint buffers = 0;
  g_object_get(queue.get(), "max-size-buffers", &buffers, nullptr);
  EXPECT_EQ(buffers, 2u);
}

// What an element cannot take is an error naming it, and no element is returned.
TEST_F(SourceDescription, MakeElementNamesWhatItCannotSet) {
  const auto problem = [](const ElementSpec& spec) {
    std::string error;
    EXPECT_FALSE(yolo::monitor::make_element(spec, error));
    return error;
  };
  EXPECT_EQ(problem({"no_such_element_xyz", "x", {}}), "no element \"no_such_element_xyz\"");
  EXPECT_EQ(problem({"identity", "", {{"no-such-property", 1}}}),
            "no property \"no-such-property\" in element \"identity\"");
  EXPECT_EQ(problem({"identity", "", {{"sleep-time", std::string("5")}}}),
            "property \"sleep-time\" of element \"identity\" takes a guint, not a gchararray");
  EXPECT_EQ(problem({"filesrc", "", {{"location", 5}}}),
            "property \"location\" of element \"filesrc\" takes a gchararray, not a gint");
  EXPECT_EQ(problem({"identity", "", {{"drop-probability", 2.0}}}),
            "drop-probability=2 is outside the range of property \"drop-probability\" of element "
            "\"identity\"");
}
