// monitor.yaml and stream objects: the shipped example and the minimal file parse, defaults and
// per-stream overrides resolve, and bad input lists every problem with its key path.
#include <fmt/format.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <variant>

#include "test_files.h"
#include "yolo/gst/tracker_settings.h"
#include "yolo/monitor/inference_elements.h"
#include "yolo/monitor/monitor_config.h"

using yolo::monitor::ConfigError;
using yolo::monitor::ConfigProblem;
using yolo::monitor::MonitorConfig;
using yolo::monitor::parse_config;
using yolo::monitor::SourceKind;
using namespace std::chrono_literals;

namespace {

// A stream with a tracker gets its settings as a GstStructure, which needs GStreamer initialised
// (the monitor initialises it before reading a configuration).
class GstInitEnvironment : public ::testing::Environment {
  void SetUp() override { gst_init(nullptr, nullptr); }
};
::testing::Environment* const gst_init_env =
    ::testing::AddGlobalTestEnvironment(new GstInitEnvironment);

// The problems of a document that must not parse.
std::vector<ConfigProblem> problems_of(const std::string& yaml) {
  try {
    parse_config(yaml, "test.yaml");
  } catch (const ConfigError& e) {
    return e.problems();
  }
  ADD_FAILURE() << "parsed, but should not have:\n" << yaml;
  return {};
}

// A property of an inference element as the element gets it; a failure when it is not set or has
// another type.
template <typename T>
T property(const yolo::monitor::ElementSpec& element, const std::string& name) {
  const yolo::monitor::ElementSpec::Value* value = element.find(name);
  if (!value || !std::holds_alternative<T>(*value)) {
    ADD_FAILURE() << element.factory << " has no " << name << " of the expected type";
    return T{};
  }
  return std::get<T>(*value);
}

// The message of the problem at `path`, or "" when none is reported there.
std::string problem_at(const std::vector<ConfigProblem>& problems, const std::string& path) {
  for (const auto& p : problems) {
    if (p.path == path) return p.message;
  }
  return "";
}

}  // namespace

// The minimal file from the issue works as written, with documented defaults everywhere else.
TEST(MonitorConfig, MinimalFileParses) {
  const MonitorConfig c = parse_config(R"(
model: path/to/best.pt
device: cpu
http: {bind: 127.0.0.1, port: 8080}
streams:
  - id: cam1
    uri: rtsp://127.0.0.1:8554/cam
)");
  EXPECT_EQ(c.defaults.model, "path/to/best.pt");
  EXPECT_EQ(c.defaults.device, "cpu");
  EXPECT_EQ(c.http.bind, "127.0.0.1");
  EXPECT_EQ(c.http.port, 8080);
  EXPECT_TRUE(c.http.token.empty());
  ASSERT_EQ(c.streams.size(), 1u);
  EXPECT_EQ(c.streams[0].id, "cam1");
  EXPECT_EQ(c.streams[0].kind, SourceKind::kRtsp);
  EXPECT_TRUE(c.rtsp.tcp);
  EXPECT_EQ(c.rtsp.latency, 200ms);
  EXPECT_EQ(c.supervision.stall_timeout, 10s);
  EXPECT_EQ(c.supervision.max_retries, 0);
  EXPECT_TRUE(c.outputs.jsonl.path.empty());
  EXPECT_TRUE(c.state_file.empty());
  const auto s = yolo::monitor::resolve(c.streams[0], c);
  EXPECT_EQ(s.model, "path/to/best.pt");
  EXPECT_DOUBLE_EQ(s.conf, 0.25);
  EXPECT_EQ(s.inference_interval, 1);
}

// config/monitor.yaml, the commented example that ships, parses and means what it says.
TEST(MonitorConfig, ShippedExampleParses) {
  const MonitorConfig c = yolo::monitor::load_config(YOLO_SOURCE_DIR "/config/monitor.yaml");
  ASSERT_EQ(c.streams.size(), 5u);
  EXPECT_EQ(c.streams[1].id, "yard");
  EXPECT_EQ(c.streams[2].kind, SourceKind::kV4l2);
  EXPECT_EQ(c.streams[3].kind, SourceKind::kFile);
  EXPECT_EQ(c.streams[4].kind, SourceKind::kHttp);
  EXPECT_EQ(c.outputs.jsonl.max_bytes, 100u << 20);
  EXPECT_EQ(c.batching.batch_timeout, 10ms);
  EXPECT_EQ(c.supervision.backoff.max, 30s);
  EXPECT_EQ(c.state_file, "/var/lib/yolo-monitor/streams.json");
  const auto yard = yolo::monitor::resolve(c.streams[1], c);
  EXPECT_DOUBLE_EQ(yard.conf, 0.4);
  EXPECT_EQ(yard.classes, "0,2");  // the element's classes text
  EXPECT_EQ(yard.inference_interval, 2);
  EXPECT_DOUBLE_EQ(yard.iou, 0.7);  // not overridden: the default
}

// Every key of every section is read, with units for durations and sizes.
TEST(MonitorConfig, EveryKeyIsRead) {
  const MonitorConfig c = parse_config(R"(
model: m.pt
device: "0"
conf: 0.5
iou: 0.6
classes: [1, 3]
inference_interval: 3
batching: {batch_size: 8, batch_timeout: 25ms}
http: {bind: 0.0.0.0, port: 0, token: s3cret}
rtsp: {transport: auto, latency: 1.5}
outputs:
  jsonl: {path: /tmp/r.jsonl, max_bytes: 512K, keep_files: 2}
  snapshots: {directory: /tmp/snaps, interval: 2m, keep_per_stream: 7, live_interval: 0}
supervision:
  stall_timeout: 3s
  start_timeout: 500ms
  backoff: {initial: 250ms, max: 1h, jitter: 0}
  max_retries: 4
state_file: /tmp/streams.json
streams:
  - {id: a.b_c-1, uri: "file:///videos/x y.mp4", model: other.pt, device: cpu, iou: 0.3}
)");
  EXPECT_EQ(c.defaults.device, "0");
  EXPECT_EQ(c.defaults.classes, "1,3");
  EXPECT_EQ(c.batching.batch_size, 8);
  EXPECT_EQ(c.batching.batch_timeout, 25ms);
  EXPECT_EQ(c.http.port, 0);
  EXPECT_EQ(c.http.token, "s3cret");
  EXPECT_FALSE(c.rtsp.tcp);
  EXPECT_EQ(c.rtsp.latency, 1500ms);
  EXPECT_EQ(c.outputs.jsonl.max_bytes, 512u * 1024);
  EXPECT_EQ(c.outputs.jsonl.keep_files, 2);
  EXPECT_EQ(c.outputs.snapshots.interval, 2min);
  EXPECT_EQ(c.outputs.snapshots.keep_per_stream, 7);
  EXPECT_EQ(c.outputs.snapshots.live_interval, 0ms);
  EXPECT_EQ(c.supervision.start_timeout, 500ms);
  EXPECT_EQ(c.supervision.backoff.max, 1h);
  EXPECT_EQ(c.supervision.backoff.jitter, 0.0);
  EXPECT_EQ(c.supervision.max_retries, 4);
  ASSERT_EQ(c.streams.size(), 1u);
  EXPECT_EQ(c.streams[0].kind, SourceKind::kFile);
  const auto s = yolo::monitor::resolve(c.streams[0], c);
  EXPECT_EQ(s.model, "other.pt");
  EXPECT_EQ(s.device, "cpu");
  EXPECT_DOUBLE_EQ(s.iou, 0.3);
  EXPECT_DOUBLE_EQ(s.conf, 0.5);
  EXPECT_EQ(s.inference_interval, 3);
}

// The shared inference settings' monitor names are the keys the monitor reads (a value of the
// wrong type is that key's problem, not an unknown key), and their ranges are the shared ones.
TEST(MonitorConfig, SharedInferenceKeysAreTheTablesMonitorNames) {
  const yolo::InferenceNames& n = yolo::kInferenceNames;
  int keys = 0;
  for (const yolo::SettingNames* s : {&n.device, &n.conf, &n.iou, &n.max_det, &n.classes,
                                      &n.agnostic, &n.half, &n.bf16, &n.rect}) {
    if (!*s->monitor_yaml) continue;
    ++keys;
    const std::string key = s->monitor_yaml;
    const auto problems =
        problems_of("model: m.pt\n" + key + ": {a: 1}\nstreams:\n  - {id: a, uri: /v.mp4}\n");
    const std::string p = problem_at(problems, key);
    EXPECT_FALSE(p.empty()) << key;
    EXPECT_EQ(p.find("unknown key"), std::string::npos) << key << ": " << p;
  }
  EXPECT_EQ(keys, 6);
  EXPECT_NE(problem_at(problems_of("model: m.pt\nconf: 1.5\nstreams:\n  - {id: a, uri: /v.mp4}\n"),
                       "conf")
                .find(fmt::format("{}..{}", yolo::kConfRange.lo, yolo::kConfRange.hi)),
            std::string::npos);
}

// One bad document reports all its problems at once, each at its key path.
TEST(MonitorConfig, EveryProblemIsListedWithItsPath) {
  const auto problems = problems_of(R"(
model: m.pt
device: mps
conf: 1.5
http: {port: 70000, bnd: 0.0.0.0}
supervision: {stall_timout: 5s, backoff: {initial: 10s, max: 1s}}
outputs: {jsonl: {max_bytes: lots}}
streams:
  - id: cam1
    uri: rtsp://127.0.0.1/cam
  - id: cam2
    uri: ftp://example.com/video
  - id: cam1
    uri: /dev/videoX
  - uri: rtsp://x/y
  - id: "bad id!"
    uri: rtsp://x/y
    inference_interval: 0
    classes: [0, -1]
)");
  EXPECT_EQ(problem_at(problems, "streams[1].uri"),
            "unsupported scheme \"ftp\" (use rtsp://, a file path, /dev/videoN, http(s)://, "
            "rtmp:// or tcp://host:port)");
  EXPECT_NE(problem_at(problems, "streams[2].id").find("duplicate id \"cam1\""), std::string::npos);
  EXPECT_NE(problem_at(problems, "streams[2].uri").find("/dev/videoN"), std::string::npos);
  EXPECT_NE(problem_at(problems, "streams[3].id").find("missing"), std::string::npos);
  EXPECT_NE(problem_at(problems, "streams[4].id").find("not a valid stream id"), std::string::npos);
  EXPECT_NE(problem_at(problems, "streams[4].inference_interval").find("out of range"),
            std::string::npos);
  EXPECT_NE(problem_at(problems, "streams[4].classes[1]").find("class id"), std::string::npos);
  EXPECT_NE(problem_at(problems, "device").find("mps"), std::string::npos);
  EXPECT_NE(problem_at(problems, "conf").find("0..1"), std::string::npos);
  EXPECT_NE(problem_at(problems, "http.port").find("0..65535"), std::string::npos);
  EXPECT_EQ(problem_at(problems, "http.bnd"), "unknown key; did you mean \"bind\"?");
  EXPECT_EQ(problem_at(problems, "supervision.stall_timout"),
            "unknown key; did you mean \"stall_timeout\"?");
  EXPECT_NE(problem_at(problems, "supervision.backoff.max").find("below initial"),
            std::string::npos);
  EXPECT_NE(problem_at(problems, "outputs.jsonl.max_bytes").find("100M"), std::string::npos);
  EXPECT_EQ(problems.size(), 14u);
  // what() names the source and lists every problem on its own line.
  try {
    parse_config("streams: [{id: a, uri: ftp://x}]", "monitor.yaml");
    FAIL();
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("monitor.yaml: 2 problems", 0), 0u) << what;
    EXPECT_NE(what.find("\n  streams[0].uri: unsupported scheme \"ftp\""), std::string::npos);
    EXPECT_NE(what.find("\n  model: missing"), std::string::npos) << what;
  }
}

// Unknown keys anywhere are reported; far-off names list the valid keys instead of guessing.
TEST(MonitorConfig, UnknownKeysAndWrongTypes) {
  const auto problems = problems_of(R"(
model: m.pt
foo: 1
streams:
  - {id: cam1, uri: /v.mp4, confidence: 0.3}
http: 8080
rtsp: {transport: udp}
batching: {batch_size: 2.5}
)");
  EXPECT_NE(problem_at(problems, "foo").find("valid keys here: model"), std::string::npos);
  EXPECT_EQ(problem_at(problems, "streams[0].confidence").rfind("unknown key", 0), 0u);
  EXPECT_NE(problem_at(problems, "http").find("expected a mapping"), std::string::npos);
  EXPECT_NE(problem_at(problems, "rtsp.transport").find("tcp"), std::string::npos);
  EXPECT_NE(problem_at(problems, "batching.batch_size").find("whole number"), std::string::npos);
}

// A number too long for 64 bits is out of range like any other value past the limits, not "not
// a whole number" (#57).
TEST(MonitorConfig, NumbersTooLargeAreOutOfRange) {
  for (const std::string big : {"99999999999999999999", "18446744073709551615"}) {
    const auto problems = problems_of(R"(
model: /m.torchscript
streams:
  - {id: cam1, uri: /v.mp4}
batching: {batch_size: )" + big + "}\n");
    const std::string p = problem_at(problems, "batching.batch_size");
    EXPECT_NE(p.find("is out of range; use"), std::string::npos) << big << ": " << p;
    EXPECT_EQ(p.find("whole number"), std::string::npos) << p;
  }
}

// Files that are not YAML, empty or missing fail with one clear problem.
TEST(MonitorConfig, UnreadableDocuments) {
  EXPECT_NE(problem_at(problems_of("streams: [unclosed"), "").find("not valid YAML"),
            std::string::npos);
  EXPECT_NE(problem_at(problems_of(""), "").find("empty"), std::string::npos);
  // Not UTF-8 (a Latin-1 editor): refused, since such an id could not be persisted or served.
  // The message names the bad byte itself where an editor shows it (line 2, column 13).
  const std::string latin1 =
      problem_at(problems_of("streams:\n  - {id: caf\xe9, uri: rtsp://x/y}\n"), "");
  EXPECT_NE(latin1.find("the file is not UTF-8 text: byte 0xE9 at line 2, column 13 (offset 21)"),
            std::string::npos)
      << latin1;
  EXPECT_NE(problem_at(problems_of("- a\n- b\n"), "").find("expected a mapping"),
            std::string::npos);
  try {
    yolo::monitor::load_config("/nonexistent/monitor.yaml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/monitor.yaml"), std::string::npos);
  }
}

// The stream object of POST /api/v1/streams parses from JSON and round-trips.
TEST(MonitorConfig, StreamFromJson) {
  const auto s = yolo::monitor::stream_from_json(
      nlohmann::json::parse(R"({"id": "cam2", "uri": "rtsp://10.0.0.2/live", "conf": 0.5})"));
  EXPECT_EQ(s.id, "cam2");
  EXPECT_EQ(s.kind, SourceKind::kRtsp);
  ASSERT_TRUE(s.conf);
  EXPECT_DOUBLE_EQ(*s.conf, 0.5);
  EXPECT_FALSE(s.model);
  const auto back = yolo::monitor::stream_from_json(yolo::monitor::to_json(s));
  EXPECT_EQ(yolo::monitor::to_json(back), yolo::monitor::to_json(s));

  try {
    yolo::monitor::stream_from_json(
        nlohmann::json::parse(R"({"id": 3.5, "uri": "gopher://x", "iuo": 0.3})"));
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(problem_at(e.problems(), "id").find("expected a string"), std::string::npos);
    EXPECT_NE(problem_at(e.problems(), "uri").find("unsupported scheme \"gopher\""),
              std::string::npos);
    EXPECT_EQ(problem_at(e.problems(), "iuo"), "unknown key; did you mean \"iou\"?");
  }
  EXPECT_THROW(yolo::monitor::stream_from_json(nlohmann::json::array()), ConfigError);
}

// uri kinds, including the ones that must be refused.
TEST(MonitorConfig, ClassifiesUris) {
  using yolo::monitor::classify_uri;
  EXPECT_EQ(classify_uri("rtsp://cam/x"), SourceKind::kRtsp);
  EXPECT_EQ(classify_uri("RTSPS://cam/x"), SourceKind::kRtsp);
  EXPECT_EQ(classify_uri("https://cam/x.mjpg"), SourceKind::kHttp);
  EXPECT_EQ(classify_uri("/dev/video12"), SourceKind::kV4l2);
  EXPECT_EQ(classify_uri("videos/a.mp4"), SourceKind::kFile);
  EXPECT_EQ(classify_uri("file:///a.mp4"), SourceKind::kFile);
  std::string why;
  EXPECT_FALSE(classify_uri("file://relative.mp4", &why));
  EXPECT_NE(why.find("file:///"), std::string::npos);
  EXPECT_FALSE(classify_uri("rtsp:///nohost", &why));
  EXPECT_FALSE(classify_uri("/dev/sda", &why));
  EXPECT_FALSE(classify_uri("", &why));
}

TEST(MonitorConfig, Durations) {
  using yolo::monitor::parse_duration;
  EXPECT_EQ(parse_duration("250ms"), 250ms);
  EXPECT_EQ(parse_duration("1.5"), 1500ms);
  EXPECT_EQ(parse_duration("2m"), 120s);
  EXPECT_EQ(parse_duration("1h"), 3600s);
  EXPECT_THROW(parse_duration("soon"), std::invalid_argument);
  EXPECT_THROW(parse_duration("-1s"), std::invalid_argument);
  EXPECT_THROW(parse_duration("5 days"), std::invalid_argument);
}

// tracker: a default for every stream, overridden or turned off ("") per stream; checked when
// read, so a bad tracker file is a problem at its key path; the stream's pipeline then runs a
// yolotracker after the yolo element.
TEST(MonitorConfig, TrackerPerStreamAndItsPipeline) {
  const MonitorConfig c = parse_config(R"(
model: m.torchscript
tracker: bytetrack.yaml
streams:
  - {id: a, uri: /v/a.mp4}
  - {id: b, uri: /v/b.mp4, tracker: botsort.yaml}
  - {id: c, uri: /v/c.mp4, tracker: ""}
)",
                                       "test.yaml");
  ASSERT_EQ(c.streams.size(), 3u);
  const auto a = yolo::monitor::resolve(c.streams[0], c);
  const auto b = yolo::monitor::resolve(c.streams[1], c);
  const auto off = yolo::monitor::resolve(c.streams[2], c);
  EXPECT_EQ(a.tracker, "bytetrack.yaml");
  EXPECT_EQ(b.tracker, "botsort.yaml");
  EXPECT_EQ(off.tracker, "");
  EXPECT_EQ(yolo::monitor::to_json(c.streams[1])["tracker"], "botsort.yaml");
  const auto tracked = yolo::monitor::inference_elements(c.streams[0], a, c.batching);
  ASSERT_EQ(tracked.size(), 2u);
  EXPECT_EQ(tracked[1].factory, "yolotracker");
  EXPECT_EQ(tracked[1].name, "tracker");
  EXPECT_EQ(property<std::string>(tracked[1], "tracker"), "bytetrack.yaml");
  // The settings read with the configuration go to the element as a value (not read again).
  ASSERT_TRUE(a.tracker_config);
  const auto settings = property<yolo::monitor::StructureValue>(tracked[1], "settings");
  EXPECT_EQ(yolo::gst::tracker_config_from_structure(settings.get()).type,
            yolo::tracking::TrackerType::kByteTrack);
  EXPECT_EQ(settings, yolo::monitor::StructureValue(
                          yolo::gst::tracker_settings_structure(*a.tracker_config)));
  EXPECT_EQ(tracked, yolo::monitor::inference_elements(c.streams[0], a, c.batching))
      << "equal settings make equal elements (a reload keeps the stream)";
  const auto untracked = yolo::monitor::inference_elements(c.streams[2], off, c.batching);
  ASSERT_EQ(untracked.size(), 1u);
  EXPECT_EQ(untracked[0].factory, "yolo");

  const auto ps = problems_of("model: m.pt\ntracker: bytetrak.yaml\nstreams: []\n");
  EXPECT_NE(problem_at(ps, "tracker").find("did you mean bytetrack.yaml"), std::string::npos);
  const auto ps2 = problems_of("model: m.pt\nstreams: [{id: a, uri: /v.mp4, tracker: 3}]\n");
  EXPECT_FALSE(problem_at(ps2, "streams[0].tracker").empty());
}

// bf16: the element's switch, a default for every stream and an override per stream; streams
// that run a model differently never share its instance.
TEST(MonitorConfig, Bf16PerStreamReachesTheElement) {
  const MonitorConfig c = parse_config(R"(
model: m.torchscript
bf16: false
streams:
  - {id: a, uri: /v/a.mp4}
  - {id: b, uri: /v/b.mp4, bf16: true}
)",
                                       "test.yaml");
  const auto a = yolo::monitor::resolve(c.streams[0], c);
  const auto b = yolo::monitor::resolve(c.streams[1], c);
  const auto bf16 = [&](size_t i, const yolo::monitor::StreamSettings& s) {
    return property<std::string>(
        yolo::monitor::inference_elements(c.streams[i], s, c.batching).at(0), "bf16");
  };
  EXPECT_EQ(bf16(0, a), "false");
  EXPECT_EQ(bf16(1, b), "true");
  EXPECT_NE(yolo::monitor::model_instance_id(a), yolo::monitor::model_instance_id(b));
  EXPECT_EQ(yolo::monitor::to_json(c.streams[1])["bf16"], true);
  const MonitorConfig unset =
      parse_config("model: m.torchscript\nstreams: [{id: a, uri: /a.mp4}]\n", "test.yaml");
  EXPECT_EQ(
      property<std::string>(
          yolo::monitor::inference_elements(
              unset.streams[0], yolo::monitor::resolve(unset.streams[0], unset), unset.batching)
              .at(0),
          "bf16"),
      "auto");
  EXPECT_FALSE(problem_at(problems_of("model: m.pt\nbf16: maybe\nstreams: []\n"), "bf16").empty());
}

// rect (#52): on by default, off for every stream at the top level, back on per stream; it
// reaches the element's `rect` property and the stream's JSON.
TEST(MonitorConfig, RectPerStreamReachesTheElement) {
  const MonitorConfig c = parse_config(R"(
model: m.pt
rect: false
streams:
  - {id: a, uri: /v/a.mp4}
  - {id: b, uri: /v/b.mp4, rect: true}
)",
                                       "test.yaml");
  const auto rect = [&](const MonitorConfig& config, size_t i) {
    const auto s = yolo::monitor::resolve(config.streams[i], config);
    return property<bool>(
        yolo::monitor::inference_elements(config.streams[i], s, config.batching).at(0), "rect");
  };
  EXPECT_FALSE(rect(c, 0));
  EXPECT_TRUE(rect(c, 1));
  EXPECT_EQ(yolo::monitor::to_json(c.streams[1])["rect"], true);
  const MonitorConfig unset =
      parse_config("model: m.pt\nstreams: [{id: a, uri: /a.mp4}]\n", "test.yaml");
  EXPECT_TRUE(rect(unset, 0)) << "Ultralytics' default for a .pt";
  EXPECT_FALSE(problem_at(problems_of("model: m.pt\nrect: maybe\nstreams: []\n"), "rect").empty());
}

// The stream's resolved settings reach the `yolo` element as typed values, exactly as
// configured: a model path with quotes, spaces and "!" is one string (nothing to escape), the
// thresholds are doubles, the counts the element's guint, batch_timeout in microseconds.
TEST(MonitorConfig, InferenceElementsCarryTypedSettings) {
  const MonitorConfig c = parse_config(R"(
model: 'models/my "best" ! run.pt'
device: cpu
conf: 0.3
iou: 0.5
classes: [0, 2]
inference_interval: 3
batching: {batch_size: 4, batch_timeout: 15ms}
streams:
  - {id: cam-1, uri: /v/a.mp4}
)",
                                       "test.yaml");
  const auto settings = yolo::monitor::resolve(c.streams[0], c);
  const auto elements = yolo::monitor::inference_elements(c.streams[0], settings, c.batching);
  ASSERT_EQ(elements.size(), 1u);
  const yolo::monitor::ElementSpec& e = elements[0];
  EXPECT_EQ(e.factory, "yolo");
  EXPECT_EQ(e.name, "yolo");
  EXPECT_EQ(property<std::string>(e, "model"), "models/my \"best\" ! run.pt");
  EXPECT_EQ(property<std::string>(e, "device"), "cpu");
  EXPECT_EQ(property<double>(e, "conf-threshold"), 0.3);
  EXPECT_EQ(property<double>(e, "iou-threshold"), 0.5);
  EXPECT_EQ(property<std::string>(e, "classes"), "0,2");
  EXPECT_EQ(property<unsigned>(e, "inference-interval"), 3u);
  EXPECT_EQ(property<unsigned>(e, "batch-size"), 4u);
  EXPECT_EQ(property<unsigned>(e, "batch-timeout"), 15000u);
  EXPECT_EQ(property<std::string>(e, "stream-id"), "cam-1");
  EXPECT_EQ(property<std::string>(e, "model-instance-id"),
            yolo::monitor::model_instance_id(settings));
  EXPECT_EQ(property<int>(e, "http-port"), 0);  // the service serves results itself
  EXPECT_EQ(property<unsigned>(e, "snapshot-interval"), 0u);
  // The text form, for logs and gst-launch-1.0, quotes what the parser needs quoted.
  const std::string text = yolo::monitor::to_launch_text(elements);
  EXPECT_EQ(text.rfind("yolo name=\"yolo\" model=\"models/my \\\"best\\\" ! run.pt\" ", 0), 0u)
      << text;
  EXPECT_NE(text.find(" conf-threshold=0.3 iou-threshold=0.5 classes=\"0,2\""), std::string::npos)
      << text;
}
