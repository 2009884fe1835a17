// The `yolo` element in whole pipelines: gst-launch-1.0 runs to EOS, the leaks tracer finds no
// leaked objects (single stream, two streams sharing a model, HTTP on, with the tracker and the
// overlay), the HTTP endpoint serves detections, stream lists and snapshots while a pipeline
// plays, and `yolo ! yolotracker ! yolooverlay` writes a video while an appsink sees track ids.
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "decoded_frames.h"
#include "gst_test_support.h"
#include "mosquitto_test_broker.h"
#include "mqtt_test_subscriber.h"
#include "run_command.h"
#include "yolo/gst/analytics_meta.h"
#include "yolo/gst/detection_meta.h"
#include "yolo/synth/synthetic_data.h"

namespace {

::testing::Environment* const gst_env =
    ::testing::AddGlobalTestEnvironment(new yolo::testing::GstEnvironment);

std::string model() {
  return yolo::testing::tiny_model().string();
}

// gst-launch-1.0 with the build tree's plugin, stdout and stderr together.
yolo::testing::CommandResult launch(const std::string& pipeline, const std::string& env = "") {
  return yolo::testing::run_command("env GST_PLUGIN_PATH=" + yolo::testing::plugin_dir() + " " +
                                    env + " timeout 300 gst-launch-1.0 -e " + pipeline);
}

// The leaks tracer logs one "object-alive, type-name=(string)GstBuffer, ..." record per object
// still alive at exit (after declaring the record's format, which names no type).
void expect_no_leaks(const std::string& pipeline) {
  const auto r = launch(pipeline, "GST_TRACERS=leaks GST_DEBUG=GST_TRACER:7");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  static const std::regex alive(R"(object-alive, type-name=\(string\)[A-Za-z])");
  std::smatch leak;
  EXPECT_FALSE(std::regex_search(r.output, leak, alive))
      << "leaked: " << r.output.substr(static_cast<size_t>(leak.position(0)), 300);
  EXPECT_NE(r.output.find("Got EOS"), std::string::npos) << r.output;
}

}  // namespace

TEST(YoloPipeline, GstLaunchRunsToEos) {
  const auto r =
      launch("videotestsrc num-buffers=30 ! videoconvert ! yolo model=" + model() + " ! fakesink");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Got EOS from element"), std::string::npos) << r.output;
}

TEST(YoloPipeline, LeaksTracerFindsNothing) {
  expect_no_leaks(
      "videotestsrc num-buffers=20 ! video/x-raw,width=160,height=120 ! videoconvert "
      "! yolo model=" +
      model() + " draw=true post-messages=true ! fakesink");
  // Two streams batched through one shared model.
  const std::string branch = "! videoconvert ! yolo model=" + model() +
                             " model-instance-id=leaktest batch-size=2 batch-timeout=20000 ";
  expect_no_leaks("videotestsrc num-buffers=20 " + branch + "stream-id=s1 ! fakesink " +
                  "videotestsrc num-buffers=20 pattern=ball " + branch + "stream-id=s2 ! fakesink");
  // The HTTP endpoint started and stopped with the element.
  expect_no_leaks(
      "videotestsrc num-buffers=20 ! video/x-raw,format=NV12,width=128,height=96 ! "
      "yolo model=" +
      model() + " http-port=" + std::to_string(yolo::testing::free_port()) +
      " snapshot-interval=1 ! fakesink");
  // The tracker (BoT-SORT: frames mapped for motion compensation) and the overlay's trails.
  expect_no_leaks(
      "videotestsrc num-buffers=20 pattern=ball ! video/x-raw,width=160,height=120 ! "
      "videoconvert ! yolo model=" +
      model() +
      " conf-threshold=0 max-detections=3 ! yolotracker keep-untracked=true "
      "! yolooverlay trails=5 ! fakesink");
}

TEST(YoloPipeline, HttpEndpointServesDetectionsWhilePlaying) {
  const int port = yolo::testing::free_port();
  const std::string desc =
      "videotestsrc is-live=true num-buffers=150 ! video/x-raw,width=160,height=96,framerate=30/1 "
      "! videoconvert ! yolo model=" +
      model() +
      " conf-threshold=0 max-detections=3 stream-id=cam7 snapshot-interval=100 http-port=" +
      std::to_string(port) + " ! fakesink";
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(desc.c_str(), &error);
  ASSERT_EQ(error, nullptr);
  ASSERT_EQ(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_ASYNC);

  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(10, 0);
  nlohmann::json latest;
  for (int attempt = 0; attempt < 100 && latest.is_null(); ++attempt) {
    auto res = client.Get("/api/v1/streams/cam7/detections");
    if (res && res->status == 200) {
      latest = nlohmann::json::parse(res->body);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ASSERT_FALSE(latest.is_null()) << "no detections served on port " << port;
  const auto& result = latest["results"].at(0);
  EXPECT_EQ(result["stream_id"], "cam7");
  EXPECT_EQ(result["width"], 160);
  EXPECT_EQ(result["height"], 96);
  ASSERT_EQ(result["detections"].size(), 3u);
  for (const auto& d : result["detections"]) {
    EXPECT_GE(d["x1"].get<double>(), 0);
    EXPECT_LE(d["x2"].get<double>(), 160);
  }
  // A long-poll for the next result returns a newer one while the pipeline plays.
  const uint64_t since = latest["next_since"];
  auto next = client.Get(
      ("/api/v1/streams/cam7/detections?since=" + std::to_string(since) + "&wait=5000").c_str());
  ASSERT_TRUE(next);
  ASSERT_EQ(next->status, 200);
  EXPECT_GT(nlohmann::json::parse(next->body)["results"].at(0)["seq"].get<uint64_t>(), since);

  auto streams = client.Get("/api/v1/streams");
  ASSERT_TRUE(streams);
  EXPECT_NE(streams->body.find("\"cam7\""), std::string::npos) << streams->body;
  auto snapshot = client.Get("/api/v1/streams/cam7/snapshot.jpg");
  ASSERT_TRUE(snapshot);
  EXPECT_EQ(snapshot->status, 200);
  ASSERT_GT(snapshot->body.size(), 100u);
  EXPECT_EQ(static_cast<unsigned char>(snapshot->body[0]), 0xFF);  // JPEG SOI
  EXPECT_EQ(static_cast<unsigned char>(snapshot->body[1]), 0xD8);
  auto metrics = client.Get("/api/v1/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("yolo_stream_frames_total{stream=\"cam7\"}"), std::string::npos)
      << metrics->body.substr(0, 2000);

  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  // The server went away with the element.
  httplib::Client after("127.0.0.1", port);
  after.set_connection_timeout(1, 0);
  EXPECT_FALSE(after.Get("/api/v1/health"));
}

namespace {

// A short synthetic H.264 video (160x90, 20 frames), made once per test run.
std::filesystem::path small_video() {
  static const std::filesystem::path video = [] {
    yolo::synth::SynthOptions o;
    o.dir = std::filesystem::path(YOLO_BINARY_DIR) / "test-gst-examples";
    o.train_images = 0;
    o.val_images = 0;
    o.imgsz = 160;
    o.video = true;
    o.video_frames = 20;
    return yolo::synth::generate_synthetic_dataset(o).video;
  }();
  return video;
}

yolo::testing::CommandResult example(const std::string& script, const std::string& args) {
  return yolo::testing::run_command("env GST_PLUGIN_PATH=" + yolo::testing::plugin_dir() +
                                    " HTTP_PORT=" + std::to_string(yolo::testing::free_port()) +
                                    " timeout 300 " + YOLO_SOURCE_DIR + "/pipelines/examples/" +
                                    script + " " + args);
}

}  // namespace

// The example scripts of pipelines/examples run as documented (the RTSP one needs a camera).
TEST(YoloPipeline, ExampleScriptsRun) {
  if (yolo::synth::synthetic_video_unavailable_reason() != "")
    GTEST_SKIP() << yolo::synth::synthetic_video_unavailable_reason();
  const std::string video = small_video().string();
  const auto file = example("file.sh", model() + " " + video);
  EXPECT_EQ(file.exit_code, 0) << file.output;
  EXPECT_NE(file.output.find("yolo-detections"), std::string::npos) << file.output;

  const auto out = std::filesystem::path(YOLO_BINARY_DIR) / "test-gst-examples" / "overlay.mp4";
  std::filesystem::remove(out);
  const auto overlay = example("overlay.sh", model() + " " + video + " " + out.string());
  EXPECT_EQ(overlay.exit_code, 0) << overlay.output;
  EXPECT_GT(std::filesystem::exists(out) ? std::filesystem::file_size(out) : 0, 1000u);

  const auto tracked = std::filesystem::path(YOLO_BINARY_DIR) / "test-gst-examples" / "track.mp4";
  std::filesystem::remove(tracked);
  const auto track = example("track.sh", model() + " " + video + " " + tracked.string());
  EXPECT_EQ(track.exit_code, 0) << track.output;
  EXPECT_GT(std::filesystem::exists(tracked) ? std::filesystem::file_size(tracked) : 0, 1000u);

  const std::string uri = "file://" + video;
  const auto multi = example("multi-camera.sh", model() + " " + uri + " " + uri);
  EXPECT_EQ(multi.exit_code, 0) << multi.output;
}

// The overlay chained after the detector, encoded to H.264 in MP4 by gst-launch-1.0: the video
// has every frame, and they carry the drawings (they differ from the source's frames).
TEST(YoloPipeline, OverlayWritesAnAnnotatedVideo) {
  if (yolo::synth::synthetic_video_unavailable_reason() != "")
    GTEST_SKIP() << yolo::synth::synthetic_video_unavailable_reason();
  const auto out = std::filesystem::path(YOLO_BINARY_DIR) / "test-gst-examples" / "annotated.mp4";
  std::filesystem::remove(out);
  const auto r = launch("filesrc location=" + small_video().string() +
                        " ! decodebin ! videoconvert ! yolo model=" + model() +
                        " conf-threshold=0 max-detections=3 ! yolooverlay ! videoconvert ! "
                        "x264enc ! mp4mux ! filesink location=" +
                        out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto source = yolo::testing::frames_through(small_video());
  const auto annotated = yolo::testing::frames_through(out);
  ASSERT_EQ(annotated.size(), source.size());
  ASSERT_FALSE(source.empty());
  for (size_t i = 0; i < source.size(); ++i) {
    ASSERT_EQ(annotated[i].size(), source[i].size());
    size_t far = 0;  // bytes the encoder's loss alone would not move this much
    for (size_t b = 0; b < source[i].size(); ++b)
      far += std::abs(int(annotated[i][b]) - int(source[i][b])) > 48;
    EXPECT_GT(far, 200u) << "frame " << i << " shows no drawing";
  }
}

namespace {

// Tracker settings under which the untrained test model's faint boxes (full-frame, scores about
// 0.001 to 0.004) become tracks: every box is a high detection, and the IoU alone decides.
std::string faint_box_tracker() {
  const auto path = std::filesystem::path(YOLO_BINARY_DIR) / "test-gst-examples" / "faint.yaml";
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << "tracker_type: botsort\ntrack_high_thresh: 0.0001\n"
                         "track_low_thresh: 0.00005\nnew_track_thresh: 0.0001\nfuse_score: False\n";
  return path.string();
}

// The track ids of every frame an appsink gets at the end of `chain` (after the decoder).
std::vector<std::vector<int64_t>> track_ids_through(const std::filesystem::path& video,
                                                    const std::string& chain) {
  std::vector<std::vector<int64_t>> frames;
  yolo::testing::each_buffer_through(video, chain, [&](GstBuffer* buffer) {
    frames.emplace_back();
    for (const yolo::Detection& d : yolo::gst::read_roi_metas(buffer))
      frames.back().push_back(d.track_id);
  });
  return frames;
}

}  // namespace

// `yolo ! yolotracker ! yolooverlay trails=10` encoded to MP4 by gst-launch-1.0 has every frame;
// an appsink after the tracker sees the same three tracks (ids 1, 2, 3) on every frame, as
// yolo-monitor's appsink would, and with keep-untracked=false nothing without an id.
TEST(YoloPipeline, TrackerPipelineWritesAVideoAndTheAppsinkSeesTrackIds) {
  if (yolo::synth::synthetic_video_unavailable_reason() != "")
    GTEST_SKIP() << yolo::synth::synthetic_video_unavailable_reason();
  const std::string detect =
      "yolo model=" + model() +
      " conf-threshold=0 max-detections=3 ! yolotracker tracker=" + faint_box_tracker();
  const auto out = std::filesystem::path(YOLO_BINARY_DIR) / "test-gst-examples" / "tracked.mp4";
  std::filesystem::remove(out);
  const auto r = launch("filesrc location=" + small_video().string() +
                        " ! decodebin ! videoconvert ! " + detect +
                        " ! yolooverlay trails=10 ! videoconvert ! x264enc ! mp4mux ! filesink "
                        "location=" +
                        out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto source = yolo::testing::frames_through(small_video());
  ASSERT_FALSE(source.empty());
  EXPECT_EQ(yolo::testing::frames_through(out).size(), source.size());

  const auto ids = track_ids_through(small_video(), detect);
  ASSERT_EQ(ids.size(), source.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(std::set<int64_t>(ids[i].begin(), ids[i].end()), (std::set<int64_t>{1, 2, 3}))
        << "frame " << i;
  }
  // Every other frame inferred: those carry the same tracks, the others nothing (the tracker
  // skips them, as the yolo element marks them).
  const auto every_other = track_ids_through(
      small_video(), "yolo model=" + model() +
                         " conf-threshold=0 max-detections=3 inference-interval=2 ! yolotracker "
                         "tracker=" +
                         faint_box_tracker());
  ASSERT_EQ(every_other.size(), source.size());
  for (size_t i = 0; i < every_other.size(); ++i) {
    const std::set<int64_t> got(every_other[i].begin(), every_other[i].end());
    const std::set<int64_t> expected = i % 2 ? std::set<int64_t>() : std::set<int64_t>({1, 2, 3});
    EXPECT_EQ(got, expected) << "frame " << i;
  }
}

// Every `yolo key=value` shown in README.md, docs/*.md and pipelines/examples names a real
// property with a value of its type (shell variables are not checked); the same for
// `yolotracker`, `yoloanalytics`, `yolopublish` and `yolooverlay`.
TEST(YoloPipeline, DocumentedElementPropertiesExist) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files = {fs::path(YOLO_SOURCE_DIR) / "README.md"};
  for (const auto& dir : {"docs", "pipelines/examples"})
    for (const auto& e : fs::directory_iterator(fs::path(YOLO_SOURCE_DIR) / dir))
      files.push_back(e.path());
  std::map<std::string, GstElement*> elements;
  for (const char* name : {"yolo", "yolotracker", "yoloanalytics", "yolopublish", "yolooverlay"}) {
    elements[name] = gst_element_factory_make(name, nullptr);
    ASSERT_NE(elements[name], nullptr) << name;
  }
  size_t checked = 0;
  for (const auto& file : files) {
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), {}), token;
    // Tokens after a standalone element name up to the next "!" (or the end of the line).
    static const std::regex element(
        R"((?:^|[\s!(])(yolo|yolotracker|yoloanalytics|yolopublish|yolooverlay)\s+([^!\n|]*))");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), element);
         it != std::sregex_iterator(); ++it) {
      GstElement* yolo = elements.at((*it)[1].str());
      std::stringstream props((*it)[2].str());
      while (props >> token) {
        const auto eq = token.find('=');
        if (eq == std::string::npos || eq == 0) break;  // prose, not properties
        const std::string key = token.substr(0, eq);
        std::string value = token.substr(eq + 1);
        static const std::regex property_name("[a-z][a-z-]*");
        if (!std::regex_match(key, property_name)) break;
        SCOPED_TRACE(file.filename().string() + ": " + token);
        GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(yolo), key.c_str());
        EXPECT_NE(spec, nullptr) << "no property '" << key << "'";
        ++checked;
        if (!spec || value.find('$') != std::string::npos || value.find('<') != std::string::npos ||
            value.find("...") != std::string::npos)
          continue;
        if (value.size() > 1 && value.front() == '"') value = value.substr(1, value.size() - 2);
        GValue v = G_VALUE_INIT;
        g_value_init(&v, spec->value_type);
        EXPECT_TRUE(gst_value_deserialize(&v, value.c_str())) << "bad value for " << key;
        g_value_unset(&v);
      }
    }
  }
  for (auto& [name, e] : elements) gst_object_unref(e);
  EXPECT_GT(checked, 20u) << "the documents lost their examples?";
}

// `yolo http-port=… post-messages=true ! queue ! yolotracker`: the tracker takes publishing over
// from the yolo element, so the HTTP results and the bus messages carry the track ids (and the
// yolo element posts nothing itself).
TEST(YoloPipeline, TrackerPublishesTheYoloElementsResultsWithIds) {
  const int port = yolo::testing::free_port();
  const std::string desc =
      "videotestsrc is-live=true num-buffers=150 ! video/x-raw,width=160,height=96,framerate=30/1 "
      "! videoconvert ! yolo name=detector model=" +
      model() + " conf-threshold=0 max-detections=3 stream-id=cam9 post-messages=true http-port=" +
      std::to_string(port) + " ! queue ! yolotracker name=tracker tracker=" + faint_box_tracker() +
      " ! fakesink";
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(desc.c_str(), &error);
  ASSERT_EQ(error, nullptr) << error->message;
  ASSERT_EQ(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_ASYNC);

  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(10, 0);
  nlohmann::json results;
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto res = client.Get("/api/v1/streams/cam9/detections?since=0&wait=2000");
    if (res && res->status == 200) {
      results = nlohmann::json::parse(res->body)["results"];
      if (results.size() >= 5) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GE(results.size(), 5u) << "too few results served on port " << port;
  for (const auto& result : results) {
    EXPECT_EQ(result["stream_id"], "cam9");
    std::set<int64_t> ids;
    for (const auto& d : result["detections"]) {
      ASSERT_TRUE(d.contains("track_id")) << result.dump();
      ids.insert(d["track_id"].get<int64_t>());
    }
    EXPECT_EQ(ids, (std::set<int64_t>{1, 2, 3})) << result.dump();
  }

  // The bus: every yolo-detections message comes from the tracker, with track ids.
  GstBus* bus = gst_element_get_bus(pipeline);
  int from_tracker = 0, from_detector = 0;
  while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT)) {
    const GstStructure* s = gst_message_get_structure(m);
    if (s && gst_structure_has_name(s, yolo::gst::kDetectionsMessage)) {
      const std::string source = GST_OBJECT_NAME(GST_MESSAGE_SRC(m));
      from_tracker += source == "tracker";
      from_detector += source == "detector";
      const GValue* list = gst_structure_get_value(s, "detections");
      ASSERT_NE(list, nullptr);
      for (guint i = 0; i < gst_value_list_get_size(list); ++i) {
        const GstStructure* d = gst_value_get_structure(gst_value_list_get_value(list, i));
        guint64 id = 0;
        EXPECT_TRUE(gst_structure_get_uint64(d, "track-id", &id));
        EXPECT_GE(id, 1u);
      }
    }
    gst_message_unref(m);
  }
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  EXPECT_GE(from_tracker, 5);
  EXPECT_EQ(from_detector, 0);
}

namespace {

// Lines and zones for the 160x90 test video in frame fractions: one zone over the whole frame
// (the untrained model's three full-frame tracks are in it from the first frame) and one line
// away from the frame's centre, where those tracks stay (a centre on the line would count, as
// Ultralytics counts a track that touches it).
std::filesystem::path analytics_config() {
  const auto path = std::filesystem::path(YOLO_BINARY_DIR) / "test-gst-examples" / "analytics.yaml";
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << "units: normalized\n"
                         "lines: [{name: side, points: [[0.25, 0], [0.25, 1]]}]\n"
                         "zones: [{name: all, points: [[0, 0], [1, 0], [1, 1], [0, 1]]}]\n";
  return path;
}

}  // namespace

// yoloanalytics puts a YoloAnalyticsMeta on every analysed frame: the first frame's events (the
// three tracks entering the zone, with seq), the counts and the geometry in pixels; later frames
// have no new events while the tracks stay. A missing or bad config fails the pipeline with the
// file named.
TEST(YoloPipeline, AnalyticsMetaCarriesEventsCountsAndGeometry) {
  if (yolo::synth::synthetic_video_unavailable_reason() != "")
    GTEST_SKIP() << yolo::synth::synthetic_video_unavailable_reason();
  const std::string chain =
      "yolo model=" + model() +
      " conf-threshold=0 max-detections=3 ! yolotracker tracker=" + faint_box_tracker() +
      " ! yoloanalytics stream-id=door config=" + analytics_config().string();
  std::vector<yolo::gst::AnalyticsMetaFields> metas;
  yolo::testing::each_buffer_through(small_video(), chain, [&](GstBuffer* buffer) {
    const auto m = yolo::gst::read_analytics_meta(buffer);
    ASSERT_TRUE(m.has_value()) << "frame " << metas.size() << " has no analytics meta";
    metas.push_back(*m);
  });
  ASSERT_GE(metas.size(), 10u);
  const nlohmann::json first = nlohmann::json::parse(metas[0].events);
  ASSERT_EQ(first.size(), 3u) << metas[0].events;
  for (const auto& e : first) {
    EXPECT_EQ(e["type"], "zone_entered");
    EXPECT_EQ(e["zone"], "all");
    EXPECT_EQ(e["stream_id"], "door");
  }
  EXPECT_EQ(first[2]["seq"], 3);
  EXPECT_EQ(nlohmann::json::parse(metas[1].events).size(), 0u) << metas[1].events;
  const nlohmann::json counts = nlohmann::json::parse(metas.back().counts);
  EXPECT_EQ(counts["zones"][0]["occupancy"], 3) << metas.back().counts;
  const nlohmann::json geometry = nlohmann::json::parse(metas[0].geometry);
  EXPECT_DOUBLE_EQ(geometry["lines"][0]["points"][0][0].get<double>(), 40.0);  // 0.25 of 160
  EXPECT_DOUBLE_EQ(geometry["zones"][0]["points"][2][1].get<double>(), 90.0);

  const auto missing = launch(
      "videotestsrc num-buffers=2 ! yoloanalytics config=/nonexistent.yaml "
      "! fakesink");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.output.find("/nonexistent.yaml"), std::string::npos) << missing.output;
  const auto bad = std::filesystem::path(YOLO_BINARY_DIR) / "test-gst-examples" / "bad.yaml";
  std::ofstream(bad) << "zones: [{name: z, points: [[0, 0], [10, 10]]}]\n";
  const auto refused =
      launch("videotestsrc num-buffers=2 ! yoloanalytics config=" + bad.string() + " ! fakesink");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find("at least 3 points"), std::string::npos) << refused.output;
}

// The documented gst-launch line: yolo ! yolotracker ! yoloanalytics ! yolopublish to a real
// mosquitto. A subscriber gets each zone event once and every frame's detections (with track
// ids), in the versioned JSON, under <topic>/<device-id>/<stream>/.
TEST(YoloPipeline, GstLaunchPublishesEventsAndDetectionsToMqtt) {
  if (yolo::synth::synthetic_video_unavailable_reason() != "")
    GTEST_SKIP() << yolo::synth::synthetic_video_unavailable_reason();
  if (yolo::testing::mosquitto_binary().empty()) GTEST_SKIP() << "mosquitto is not installed";
  const auto dir = std::filesystem::path(YOLO_BINARY_DIR) / "test-gst-publish";
  std::filesystem::remove_all(dir);
  yolo::testing::MosquittoTestBroker broker(dir / "broker");
  broker.start();
  yolo::testing::MqttTestSubscriber subscriber(broker.port(), "t/#", "gst-test-sub", false);
  ASSERT_TRUE(subscriber.wait_subscribed(std::chrono::seconds(10)));
  const auto r =
      launch("filesrc location=" + small_video().string() +
             " ! decodebin ! videoconvert ! yolo model=" + model() +
             " conf-threshold=0 max-detections=3 ! yolotracker tracker=" + faint_box_tracker() +
             " ! yoloanalytics stream-id=door config=" + analytics_config().string() +
             " ! yolopublish url=" + broker.url() +
             " topic=t device-id=box detections-every=1 ! fakesink");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const size_t frames = yolo::testing::frames_through(small_video()).size();
  ASSERT_TRUE(subscriber.wait_count(frames + 3, std::chrono::seconds(20)))
      << subscriber.messages().size() << " messages";
  int events = 0, detections = 0;
  for (const std::string& payload : subscriber.messages()) {
    const nlohmann::json m = nlohmann::json::parse(payload);
    EXPECT_EQ(m["schema_version"], 1);
    EXPECT_EQ(m["device_id"], "box");
    EXPECT_EQ(m["stream_id"], "door");
    if (m["kind"] == "event") {
      ++events;
      EXPECT_EQ(m["type"], "zone_entered") << payload;
    } else {
      ++detections;
      ASSERT_EQ(m["detections"].size(), 3u) << payload;
      for (const auto& d : m["detections"]) EXPECT_GE(d["track_id"].get<int>(), 1) << payload;
    }
  }
  EXPECT_EQ(events, 3);
  EXPECT_EQ(static_cast<size_t>(detections), frames);
}

// yolopublish with nothing to publish (no yoloanalytics upstream, detections-every=0) says so
// once, as a warning on the bus that gst-launch prints (#57); with detections on it does not.
TEST(YoloPipeline, PublishWithNothingToPublishWarnsOnce) {
  if (yolo::synth::synthetic_video_unavailable_reason() != "")
    GTEST_SKIP() << yolo::synth::synthetic_video_unavailable_reason();
  if (yolo::testing::mosquitto_binary().empty()) GTEST_SKIP() << "mosquitto is not installed";
  const auto dir = std::filesystem::path(YOLO_BINARY_DIR) / "test-gst-publish-nothing";
  std::filesystem::remove_all(dir);
  yolo::testing::MosquittoTestBroker broker(dir / "broker");
  broker.start();
  const std::string head = "filesrc location=" + small_video().string() +
                           " ! decodebin ! videoconvert ! yolo model=" + model() +
                           " ! yolopublish url=" + broker.url() + " topic=t device-id=box";
  auto r = launch(head + " ! fakesink");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  size_t warnings = 0;
  for (size_t at = r.output.find("nothing to publish"); at != std::string::npos;
       at = r.output.find("nothing to publish", at + 1))
    ++warnings;
  EXPECT_EQ(warnings, 1u) << r.output;
  EXPECT_NE(r.output.find("detections-every=N"), std::string::npos) << r.output;
  r = launch(head + " detections-every=1 ! fakesink");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("nothing to publish"), std::string::npos) << r.output;
}

// yolooverlay draws yoloanalytics' lines and zones: down the line's column (x = 40 of 160, BGRx
// frames), away from the boxes' edges and the label, the pixels take the line's colour; without
// the analytics they stay as they were.
TEST(YoloPipeline, OverlayDrawsLinesAndZones) {
  if (yolo::synth::synthetic_video_unavailable_reason() != "")
    GTEST_SKIP() << yolo::synth::synthetic_video_unavailable_reason();
  const std::string detect =
      "yolo model=" + model() +
      " conf-threshold=0 max-detections=3 ! yolotracker tracker=" + faint_box_tracker();
  const auto plain = yolo::testing::frames_through(small_video(), detect + " ! yolooverlay");
  const auto drawn = yolo::testing::frames_through(
      small_video(),
      detect + " ! yoloanalytics config=" + analytics_config().string() + " ! yolooverlay");
  ASSERT_EQ(plain.size(), drawn.size());
  ASSERT_FALSE(drawn.empty());
  const int width = 160;
  int amber = 0, changed = 0;
  for (int y = 55; y < 80; ++y) {
    const size_t at = (static_cast<size_t>(y) * width + 40) * 4;
    const uint8_t b = drawn[0][at], g = drawn[0][at + 1], r = drawn[0][at + 2];
    amber += b < 60 && g > 170 && r > 200;
    changed += plain[0][at] != b || plain[0][at + 1] != g || plain[0][at + 2] != r;
  }
  EXPECT_GE(amber, 20) << "the line is not drawn down its column";
  EXPECT_GE(changed, 20);
}
