// StreamSupervisor against real pipelines: an in-process RTSP server on 127.0.0.1 that goes
// away and comes back, an unreachable camera next to a good one, EOS, stalls, bad
// descriptions, and stop(). Timeouts and backoff are short so each test takes seconds.
#include <gst/gst.h>
#include <gst/video/gstvideometa.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

#include "rtsp_test_server.h"
#include "test_files.h"
#include "yolo/monitor/pipeline_description.h"
#include "yolo/monitor/sample_results.h"
#include "yolo/monitor/stream_supervisor.h"

using namespace std::chrono_literals;
using yolo::monitor::StreamState;
using yolo::monitor::StreamSupervisor;

namespace {

// gst_init once; gst_deinit at the end when the leaks-tracer variant asks for it (the tracer
// reports what is still alive at deinit).
class GstEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { gst_init(nullptr, nullptr); }
  void TearDown() override {
    if (std::getenv("YOLO_TEST_GST_DEINIT")) {
      // The test RTSP server's worker threads end asynchronously; wait for them, or the tracer
      // reports them (GstRTSPThread) as leaks of the server rather than of the code under test.
      gst_rtsp_thread_pool_cleanup();
      gst_deinit();
    }
  }
};
const auto* const kGstEnvironment = ::testing::AddGlobalTestEnvironment(new GstEnvironment);

yolo::monitor::SupervisorOptions fast_options() {
  yolo::monitor::SupervisorOptions o;
  o.stall_timeout = 1500ms;
  o.start_timeout = 5s;
  o.backoff = {100ms, 400ms, 0.2};
  o.fps_window = 500ms;
  return o;
}

// The service's pipeline for an RTSP camera, with a typed `identity` named "infer" linked in
// front of the appsink where the `yolo` element goes.
yolo::monitor::StreamPipeline rtsp_pipeline(const std::string& uri) {
  yolo::monitor::StreamConfig s;
  s.id = "cam";
  s.uri = uri;
  s.kind = yolo::monitor::SourceKind::kRtsp;
  yolo::monitor::SourceOptions o;
  o.rtsp_latency = 50ms;
  return yolo::monitor::stream_pipeline(s, o, {{"identity", "infer", {{"silent", true}}}});
}

// Polls `condition` until it holds or `limit` passes (the limit only bounds a failing test).
bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return condition();
}

// What one supervisor reported: samples (with their caps), states in order.
struct Recorder {
  std::mutex mutex;
  std::vector<StreamState> states;
  std::atomic<int> samples{0};
  std::atomic<int> snapshot_ready{0};  // samples with_bgr_frame can make a BGR picture of
  std::atomic<int> roi_metas{0};

  StreamSupervisor::Callbacks callbacks() {
    StreamSupervisor::Callbacks c;
    c.on_sample = [this](GstSample* sample) {
      ++samples;
      if (yolo::monitor::with_bgr_frame(sample,
                                        [](const cv::Mat& bgr) { EXPECT_EQ(bgr.type(), CV_8UC3); }))
        ++snapshot_ready;
      GstBuffer* buffer = gst_sample_get_buffer(sample);
      if (buffer && gst_buffer_get_video_region_of_interest_meta_id(buffer, 0)) ++roi_metas;
    };
    c.on_state = [this](StreamState state, const std::string&) {
      std::lock_guard<std::mutex> lock(mutex);
      states.push_back(state);
    };
    return c;
  }
  bool saw(StreamState state) {
    std::lock_guard<std::mutex> lock(mutex);
    return std::find(states.begin(), states.end(), state) != states.end();
  }
};

// Adds one ROI meta per buffer on the src pad of the element named `infer`: what the `yolo`
// element's output looks like (label quark, "detection" params).
void add_fake_detections(GstElement* pipeline) {
  GstElement* infer = gst_bin_get_by_name(GST_BIN(pipeline), "infer");
  ASSERT_NE(infer, nullptr);
  GstPad* pad = gst_element_get_static_pad(infer, "src");
  gst_pad_add_probe(
      pad, GST_PAD_PROBE_TYPE_BUFFER,
      [](GstPad*, GstPadProbeInfo* info, gpointer) -> GstPadProbeReturn {
        GstBuffer* buffer = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
        GstVideoRegionOfInterestMeta* meta =
            gst_buffer_add_video_region_of_interest_meta(buffer, "person", 10, 20, 30, 40);
        gst_video_region_of_interest_meta_add_param(
            meta, gst_structure_new("detection", "confidence", G_TYPE_DOUBLE, 0.9, "class-id",
                                    G_TYPE_INT, 0, "label", G_TYPE_STRING, "person", nullptr));
        GST_PAD_PROBE_INFO_DATA(info) = buffer;
        return GST_PAD_PROBE_OK;
      },
      nullptr, nullptr);
  gst_object_unref(pad);
  gst_object_unref(infer);
}

}  // namespace

// A live RTSP camera: starting, then running with frames a snapshot can be made of (the
// decoder's YUV, converted on demand), fps and a last-frame age; the
// owner's pipeline hook sees the inference element; stop() ends in `stopped`.
TEST(StreamSupervisor, RunsAnRtspStream) {
  yolo::testing::RtspTestServer server;
  server.start();
  Recorder rec;
  auto callbacks = rec.callbacks();
  callbacks.on_pipeline = add_fake_detections;
  StreamSupervisor sup("cam1", rtsp_pipeline(server.uri()), fast_options(), callbacks);
  EXPECT_EQ(sup.state(), StreamState::kStopped);
  sup.start();
  ASSERT_TRUE(eventually([&] { return rec.samples >= 10; })) << sup.stats().last_error;
  const auto stats = sup.stats();
  EXPECT_EQ(stats.state, StreamState::kRunning);
  EXPECT_GE(stats.frames, 10u);
  EXPECT_EQ(stats.retries, 0u);
  ASSERT_TRUE(stats.last_frame_age);
  EXPECT_LT(*stats.last_frame_age, fast_options().stall_timeout);
  EXPECT_EQ(rec.snapshot_ready.load(), rec.samples.load());
  EXPECT_GE(stats.source_frames, stats.frames);  // counted at the leaky queue, before the sink
  EXPECT_GT(rec.roi_metas.load(), 0);            // metas added before the appsink reach the owner
  EXPECT_TRUE(eventually([&] { return sup.stats().fps > 0; }, 5s));
  EXPECT_EQ(yolo::monitor::to_json(sup.stats())["state"], "running");
  sup.stop();
  EXPECT_EQ(sup.state(), StreamState::kStopped);
  EXPECT_TRUE(rec.saw(StreamState::kStarting));
  const int after_stop = rec.samples;
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(rec.samples.load(), after_stop);  // no callback after stop()
  sup.stop();                                 // idempotent
}

// The camera goes away for a few seconds and comes back: reconnecting (or stalled), then
// running again with frames resuming, and the error recorded.
TEST(StreamSupervisor, ReconnectsAfterServerOutage) {
  yolo::testing::RtspTestServer server;
  server.start();
  Recorder rec;
  StreamSupervisor sup("cam1", rtsp_pipeline(server.uri()), fast_options(), rec.callbacks());
  sup.start();
  ASSERT_TRUE(eventually([&] { return sup.state() == StreamState::kRunning; }));

  server.stop();
  ASSERT_TRUE(eventually([&] {
    const auto s = sup.state();
    return s == StreamState::kReconnecting || s == StreamState::kStalled;
  }));
  std::this_thread::sleep_for(2s);  // still down: attempts fail and back off
  const auto down = sup.stats();
  EXPECT_NE(down.state, StreamState::kRunning);
  EXPECT_NE(down.state, StreamState::kFailed);  // max_retries 0: never gives up
  EXPECT_FALSE(down.last_error.empty());
  EXPECT_GE(down.failures_in_a_row, 1);
  const uint64_t frames_while_down = down.frames;

  server.start();  // same port
  ASSERT_TRUE(eventually([&] {
    return sup.state() == StreamState::kRunning && sup.stats().frames > frames_while_down + 5;
  })) << sup.stats().last_error;
  const auto up = sup.stats();
  EXPECT_GE(up.retries, 1u);
  EXPECT_EQ(up.failures_in_a_row, 0);  // the success reset it
  EXPECT_FALSE(up.next_attempt_in);
  sup.stop();
}

// An unreachable camera retries max_retries times and fails with its error, while a good
// stream next to it keeps delivering frames throughout.
TEST(StreamSupervisor, UnreachableStreamFailsWithoutTouchingOthers) {
  yolo::testing::RtspTestServer server;
  server.start();
  Recorder good_rec, bad_rec;
  StreamSupervisor good("good", rtsp_pipeline(server.uri()), fast_options(), good_rec.callbacks());
  auto options = fast_options();
  options.max_retries = 2;
  // Port 1 on the loopback: nothing listens, the connection is refused at once.
  StreamSupervisor bad("bad", rtsp_pipeline("rtsp://127.0.0.1:1/none"), options,
                       bad_rec.callbacks());
  good.start();
  bad.start();
  ASSERT_TRUE(eventually([&] { return bad.state() == StreamState::kFailed; }))
      << yolo::monitor::to_json(bad.stats()).dump();
  const auto b = bad.stats();
  EXPECT_EQ(b.retries, 2u);
  EXPECT_EQ(b.failures_in_a_row, 3);
  EXPECT_FALSE(b.last_error.empty());
  EXPECT_EQ(b.frames, 0u);
  EXPECT_FALSE(b.next_attempt_in);
  EXPECT_TRUE(bad_rec.saw(StreamState::kReconnecting));
  EXPECT_FALSE(bad_rec.saw(StreamState::kRunning));

  ASSERT_TRUE(eventually([&] { return good.state() == StreamState::kRunning; }));
  const int before = good_rec.samples;
  EXPECT_TRUE(eventually([&] { return good_rec.samples > before + 5; }));
  EXPECT_EQ(good.stats().retries, 0u);
  bad.stop();
  good.stop();
}

// EOS (a finite source) rebuilds the pipeline: frames continue after each end.
TEST(StreamSupervisor, RebuildsAfterEos) {
  Recorder rec;
  StreamSupervisor sup("file",
                       std::string("videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 ! "
                                   "appsink name=sink"),
                       fast_options(), rec.callbacks());
  sup.start();
  ASSERT_TRUE(eventually([&] { return sup.stats().retries >= 2 && rec.samples >= 15; }))
      << yolo::monitor::to_json(sup.stats()).dump();
  EXPECT_EQ(sup.stats().last_error, "end of stream");
  sup.stop();
}

// Frames that stop while the pipeline stays up (a probe starts dropping everything): stalled,
// then rebuilt and running again.
TEST(StreamSupervisor, DetectsAStall) {
  Recorder rec;
  std::atomic<int> built{0};
  auto callbacks = rec.callbacks();
  // The first pipeline delivers 5 frames, then drops every buffer; later ones run normally.
  callbacks.on_pipeline = [&](GstElement* pipeline) {
    if (built++ > 0) return;
    GstElement* gate = gst_bin_get_by_name(GST_BIN(pipeline), "gate");
    GstPad* pad = gst_element_get_static_pad(gate, "src");
    gst_pad_add_probe(
        pad, GST_PAD_PROBE_TYPE_BUFFER,
        [](GstPad*, GstPadProbeInfo*, gpointer count) -> GstPadProbeReturn {
          return ++*static_cast<std::atomic<int>*>(count) > 5 ? GST_PAD_PROBE_DROP
                                                              : GST_PAD_PROBE_OK;
        },
        new std::atomic<int>(0), [](gpointer p) { delete static_cast<std::atomic<int>*>(p); });
    gst_object_unref(pad);
    gst_object_unref(gate);
  };
  auto options = fast_options();
  options.stall_timeout = 500ms;
  StreamSupervisor sup("stall",
                       std::string("videotestsrc is-live=true ! "
                                   "video/x-raw,width=64,height=48,framerate=30/1 "
                                   "! identity name=gate ! appsink name=sink"),
                       options, callbacks);
  sup.start();
  ASSERT_TRUE(eventually([&] { return rec.saw(StreamState::kStalled); }));
  ASSERT_TRUE(eventually([&] { return sup.state() == StreamState::kRunning && rec.samples > 10; }));
  EXPECT_NE(sup.stats().last_error.find("stall_timeout"), std::string::npos);
  EXPECT_EQ(built.load(), 2);
  sup.stop();
}

// Frames that still enter the leaky queue while none reach the sink (a blocked model or sample
// callback) are a stall too, but the error says the source is fine.
TEST(StreamSupervisor, TellsABlockedConsumerFromAStalledSource) {
  auto options = fast_options();
  options.stall_timeout = 500ms;
  std::atomic<int> samples{0};
  StreamSupervisor::Callbacks callbacks;
  callbacks.on_sample = [&](GstSample*) {
    if (++samples == 5) std::this_thread::sleep_for(1500ms);  // once: a model that hangs
  };
  StreamSupervisor sup(
      "blocked",
      std::string("videotestsrc is-live=true ! video/x-raw,width=64,height=48,framerate=30/1 "
                  "! queue name=leaky leaky=downstream max-size-buffers=1 ! appsink name=sink"),
      options, callbacks);
  sup.start();
  ASSERT_TRUE(eventually([&] { return sup.stats().retries >= 1 && samples > 10; }))
      << yolo::monitor::to_json(sup.stats()).dump();
  EXPECT_NE(sup.stats().last_error.find("source still delivers frames"), std::string::npos)
      << sup.stats().last_error;
  EXPECT_GT(sup.stats().source_frames, sup.stats().frames);
  sup.stop();
}

// Writes a short MJPEG AVI (30 frames at 30 fps) with GStreamer itself.
void write_test_video(const std::string& path) {
  GError* error = nullptr;
  GstElement* p = gst_parse_launch(
      ("videotestsrc num-buffers=30 ! video/x-raw,width=96,height=64,framerate=30/1 ! jpegenc ! "
       "avimux ! filesink location=" +
       yolo::media::quote_gst_value(path))
          .c_str(),
      &error);
  ASSERT_EQ(error, nullptr) << error->message;
  gst_element_set_state(p, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(p);
  GstMessage* m = gst_bus_timed_pop_filtered(bus, 10 * GST_SECOND,
                                             GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(GST_MESSAGE_TYPE(m), GST_MESSAGE_EOS);
  gst_message_unref(m);
  gst_object_unref(bus);
  gst_element_set_state(p, GST_STATE_NULL);
  gst_object_unref(p);
}

yolo::monitor::StreamConfig config_for(const std::string& uri) {
  return yolo::monitor::stream_from_json({{"id", "v"}, {"uri", uri}});
}

// A file and the same file over HTTP run through the descriptions the service builds: every
// frame can be made a BGR snapshot of, and the file is replayed when it ends.
TEST(StreamSupervisor, FileAndHttpSources) {
  yolo::testing::TempDir dir("supervisor_file");
  const std::string video = (dir.path / "clip one.avi").string();  // a space: quoting holds
  write_test_video(video);
  const std::string bytes = yolo::testing::read_file(video);
  ASSERT_GT(bytes.size(), 1000u);

  Recorder file_rec;
  StreamSupervisor file(
      "file", yolo::monitor::stream_pipeline(config_for(video), {}, {{"identity", "", {}}}),
      fast_options(), file_rec.callbacks());
  file.start();
  ASSERT_TRUE(eventually([&] { return file.stats().retries >= 1 && file_rec.samples > 30; }))
      << yolo::monitor::to_json(file.stats()).dump();
  EXPECT_EQ(file_rec.snapshot_ready.load(), file_rec.samples.load());
  EXPECT_EQ(file.stats().last_error, "end of stream");  // replayed after the end
  file.stop();

  httplib::Server http;
  http.Get("/clip.avi", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(bytes, "video/x-msvideo");
  });
  const int port = http.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { http.listen_after_bind(); });
  Recorder http_rec;
  StreamSupervisor web("web",
                       yolo::monitor::stream_pipeline(
                           config_for("http://127.0.0.1:" + std::to_string(port) + "/clip.avi"), {},
                           {{"identity", "", {}}}),
                       fast_options(), http_rec.callbacks());
  web.start();
  EXPECT_TRUE(eventually([&] { return http_rec.samples >= 5; }))
      << yolo::monitor::to_json(web.stats()).dump();
  web.stop();
  http.stop();
  serving.join();
}

// A description that does not parse, or has no appsink, or an inference element that cannot be
// made, is a failed attempt with a clear error; a source that never delivers a frame fails after
// start_timeout.
TEST(StreamSupervisor, BadPipelinesFailClearly) {
  auto options = fast_options();
  options.max_retries = 1;
  Recorder r1, r2, r3, r4;
  StreamSupervisor unparsable("x", std::string("no_such_element_xyz ! appsink name=sink"), options,
                              r1.callbacks());
  StreamSupervisor no_sink("y", std::string("videotestsrc ! fakesink"), options, r2.callbacks());
  yolo::monitor::StreamPipeline bad_inference(std::string("videotestsrc ! appsink name=sink"));
  bad_inference.inference = {{"identity", "infer", {{"sleep-time", std::string("soon")}}}};
  StreamSupervisor unmade("w", bad_inference, options, r4.callbacks());
  options.start_timeout = 300ms;
  StreamSupervisor silent("z", std::string("appsrc ! appsink name=sink"), options, r3.callbacks());
  unparsable.start();
  no_sink.start();
  unmade.start();
  silent.start();
  for (auto* s : {&unparsable, &no_sink, &unmade, &silent}) {
    ASSERT_TRUE(eventually([&] { return s->state() == StreamState::kFailed; })) << s->id();
  }
  EXPECT_NE(unparsable.stats().last_error.find("does not parse"), std::string::npos)
      << unparsable.stats().last_error;
  EXPECT_NE(no_sink.stats().last_error.find("appsink named \"sink\""), std::string::npos);
  EXPECT_EQ(unmade.stats().last_error.rfind(
                "the pipeline cannot be built: property \"sleep-time\" of element \"identity\" "
                "takes a guint, not a gchararray",
                0),
            0u)
      << unmade.stats().last_error;
  EXPECT_NE(silent.stats().last_error.find("start_timeout"), std::string::npos);
  EXPECT_THROW(unparsable.start(), std::logic_error);
}

TEST(StreamSupervisor, RefusesBadOptions) {
  auto options = fast_options();
  options.stall_timeout = 0ms;
  EXPECT_THROW(StreamSupervisor("a", std::string("x"), options, {}), std::invalid_argument);
  options = fast_options();
  options.max_retries = -1;
  EXPECT_THROW(StreamSupervisor("a", std::string("x"), options, {}), std::invalid_argument);
}
