// yolo-monitor as a user runs it, with the real `yolo` element and a model trained by
// yolo-trainer: an RTSP camera (gst-rtsp-server on 127.0.0.1 serving the synthetic video)
// whose objects are detected; the camera goes away for seconds and comes back (reconnecting,
// then running again, detections resume) while an unreachable camera fails on its own without
// touching the others; cameras added and removed over HTTP; the token enforced; SIGHUP adds a
// stream without restarting the others; SIGTERM exits 0 with the JSON-lines output complete.
#include <fcntl.h>
#include <gst/gst.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "../parity/oracle.h"
#include "free_port.h"
#include "mosquitto_test_broker.h"
#include "mqtt_test_subscriber.h"
#include "rtsp_test_server.h"
#include "run_command.h"
#include "slow_model.h"
#include "trained_shapes_model.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

extern char** environ;

namespace {

class GstEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { gst_init(nullptr, nullptr); }
};
::testing::Environment* const gst_env = ::testing::AddGlobalTestEnvironment(new GstEnvironment);

// The yolo-monitor process, its output in a log file; SIGKILLed if a test leaves it running.
class MonitorProcess {
 public:
  MonitorProcess(const fs::path& config, const fs::path& log) : log_(log) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    const std::string bin = YOLO_MONITOR_BIN, flag = "--config", path = config.string();
    char* argv[] = {const_cast<char*>(bin.c_str()), const_cast<char*>(flag.c_str()),
                    const_cast<char*>(path.c_str()), nullptr};
    if (posix_spawn(&pid_, bin.c_str(), &actions, nullptr, argv, environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~MonitorProcess() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  MonitorProcess(const MonitorProcess&) = delete;
  MonitorProcess& operator=(const MonitorProcess&) = delete;

  bool started() const { return pid_ > 0; }
  void signal(int sig) const { ::kill(pid_, sig); }
  // Exit code after waiting up to `timeout`; -1 if it did not exit (or died by a signal).
  int wait_exit(std::chrono::seconds timeout) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < end) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(50ms);
    }
    return -1;
  }
  std::string log() const {
    std::ifstream in(log_);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }

 private:
  fs::path log_;
  pid_t pid_ = -1;
  bool exited_ = false;
};

size_t count_occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Runs a gst-launch description to its end; empty, or why it failed.
std::string run_to_end(const std::string& description) {
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(description.c_str(), &error);
  if (!pipeline || error) {
    const std::string why = error ? error->message : "does not parse";
    g_clear_error(&error);
    if (pipeline) gst_object_unref(pipeline);
    return why;
  }
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* end = gst_bus_timed_pop_filtered(
      bus, 60 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  std::string why;
  if (!end)
    why = "timed out";
  else if (GST_MESSAGE_TYPE(end) == GST_MESSAGE_ERROR)
    why = "error: " + description;
  if (end) gst_message_unref(end);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return why;
}

// One MPEG-TS file whose H.264 stream changes resolution at every segment, with continuous
// timestamps (a camera switching its mode); `sizes` in turn, `segments` times.
std::string write_resolution_changes(const fs::path& file,
                                     const std::vector<std::pair<int, int>>& sizes, int segments,
                                     int frames_per_segment, int fps) {
  const fs::path raw = file.string() + ".h264";
  std::ofstream joined(raw, std::ios::binary);
  for (int i = 0; i < segments; ++i) {
    const auto [w, h] = sizes[i % sizes.size()];
    const fs::path part = file.string() + "." + std::to_string(i) + ".h264";
    const std::string why = run_to_end(fmt::format(
        "videotestsrc num-buffers={} pattern=ball ! "
        "video/x-raw,format=I420,width={},height={},framerate={}/1 ! "
        "x264enc key-int-max={} ! video/x-h264,stream-format=byte-stream ! filesink location={}",
        frames_per_segment, w, h, fps, frames_per_segment, part.string()));
    if (!why.empty()) return why;
    std::ifstream in(part, std::ios::binary);
    joined << in.rdbuf();
    fs::remove(part);
  }
  joined.close();
  const std::string why =
      run_to_end(fmt::format("filesrc location={} ! h264parse ! mpegtsmux ! filesink location={}",
                             raw.string(), file.string()));
  fs::remove(raw);
  return why;
}

// Polls `check` every 100 ms until it holds or `timeout` passes.
bool eventually(const std::function<bool()>& check, std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (check()) return true;
    std::this_thread::sleep_for(100ms);
  }
  return check();
}

class Api {
 public:
  Api(int port, std::string token) : client_("127.0.0.1", port), token_(std::move(token)) {
    client_.set_read_timeout(10, 0);
  }
  httplib::Headers auth() const { return {{"Authorization", "Bearer " + token_}}; }
  json streams() {
    auto r = client_.Get("/api/v1/streams", auth());
    if (!r || r->status != 200) return json();
    return json::parse(r->body);
  }
  json stream(const std::string& id) {
    json all = streams();
    if (all.is_null()) return json();
    for (const auto& s : all["streams"])
      if (s["id"] == id) return s;
    return json();
  }
  std::string state(const std::string& id) {
    json s = stream(id);
    return s.is_null() ? "" : s["state"].get<std::string>();
  }
  httplib::Client& client() { return client_; }

 private:
  httplib::Client client_;
  std::string token_;
};

}  // namespace

TEST(YoloMonitor, CamerasThroughOutagesApiReloadAndShutdown) {
  const yolo::testing::TrainedShapes shapes = yolo::testing::trained_shapes_model();
  ASSERT_TRUE(fs::exists(shapes.model)) << "training did not produce " << shapes.model;
  if (shapes.video.empty()) GTEST_SKIP() << "no H.264 encoder for the synthetic video";

  // A 40 s camera: the same shapes as the training set (same options, longer video).
  const fs::path dir = fs::path(YOLO_BINARY_DIR) / "test-monitor-e2e";
  fs::remove_all(dir);
  auto camera_options = yolo::testing::shapes_options(dir / "camera");
  camera_options.train_images = camera_options.val_images = 0;
  camera_options.video_frames = 600;
  const fs::path camera_video = yolo::synth::generate_synthetic_dataset(camera_options).video;
  yolo::testing::RtspTestServer camera("( filesrc location=" + camera_video.string() +
                                       " ! qtdemux ! h264parse ! rtph264pay name=pay0 pt=96 )");
  camera.start();

  const int http_port = yolo::testing::free_port();
  const int dead_port = yolo::testing::free_port();  // nobody listens there
  const fs::path config = dir / "monitor.yaml";
  const auto write_config = [&](const std::string& extra_stream) {
    std::ofstream(config) << "model: " << shapes.model.string() << "\n"
                          << "device: cpu\n"
                          << "http: {bind: 127.0.0.1, port: " << http_port << ", token: s3cret}\n"
                          << "outputs:\n  jsonl: {path: " << (dir / "results.jsonl").string()
                          << "}\n"
                          << "state_file: " << (dir / "streams.json").string() << "\n"
                          << "supervision:\n  stall_timeout: 2s\n  start_timeout: 10s\n"
                          << "  max_retries: 10\n"
                          << "  backoff: {initial: 300ms, max: 1s, jitter: 0.1}\n"
                          << "streams:\n"
                          << "  - id: cam1\n    uri: " << camera.uri() << "\n"
                          << "  - id: dead\n    uri: rtsp://127.0.0.1:" << dead_port << "/x\n"
                          << extra_stream;
  };
  write_config("");
  MonitorProcess monitor(config, dir / "monitor.log");
  ASSERT_TRUE(monitor.started());
  Api api(http_port, "s3cret");

  // The camera runs and its shapes are detected.
  ASSERT_TRUE(eventually([&] { return api.state("cam1") == "running"; }, 60s)) << monitor.log();
  json detections;
  ASSERT_TRUE(eventually(
      [&] {
        auto r = api.client().Get("/api/v1/streams/cam1/detections", api.auth());
        if (!r || r->status != 200) return false;
        detections = json::parse(r->body)["results"].at(0)["detections"];
        return !detections.empty();
      },
      30s))
      << monitor.log();
  for (const auto& d : detections) EXPECT_EQ(d["class_name"], "rectangle");

  // The token is enforced; health stays open.
  EXPECT_EQ(api.client().Get("/api/v1/streams")->status, 401);
  EXPECT_EQ(api.client().Get("/api/v1/health")->status, 200);

  // The unreachable camera fails on its own, with its error, after max_retries.
  ASSERT_TRUE(eventually([&] { return api.state("dead") == "failed"; }, 40s)) << api.streams();
  EXPECT_FALSE(api.stream("dead")["last_error"].get<std::string>().empty());
  EXPECT_EQ(api.state("cam1"), "running");

  // The camera goes away for a few seconds and comes back.
  const auto frames_before = api.stream("cam1")["frames"].get<uint64_t>();
  camera.stop();
  ASSERT_TRUE(eventually(
      [&] {
        const std::string s = api.state("cam1");
        return s == "reconnecting" || s == "stalled";
      },
      15s))
      << api.streams();
  std::this_thread::sleep_for(2500ms);
  camera.start();
  ASSERT_TRUE(eventually([&] { return api.state("cam1") == "running"; }, 30s))
      << api.streams() << monitor.log();
  const uint64_t retries_after_outage = api.stream("cam1")["retries"].get<uint64_t>();
  EXPECT_GE(retries_after_outage, 1u);
  const auto seq_before = api.stream("cam1")["latest_seq"].get<uint64_t>();
  ASSERT_TRUE(eventually(
      [&] { return api.stream("cam1")["latest_seq"].get<uint64_t>() > seq_before + 5; }, 20s))
      << "detections did not resume";
  EXPECT_GT(api.stream("cam1")["frames"].get<uint64_t>(), frames_before);

  // Cameras added and removed over HTTP, persisted to the state file.
  auto added = api.client().Post("/api/v1/streams", api.auth(),
                                 json{{"id", "cam2"}, {"uri", shapes.video.string()}}.dump(),
                                 "application/json");
  ASSERT_TRUE(added);
  EXPECT_EQ(added->status, 201) << added->body;
  EXPECT_EQ(
      api.client()
          .Post("/api/v1/streams", api.auth(),
                json{{"id", "cam2"}, {"uri", shapes.video.string()}}.dump(), "application/json")
          ->status,
      409);
  EXPECT_EQ(api.client()
                .Post("/api/v1/streams", api.auth(), R"({"id": "bad", "uri": "ftp://x"})",
                      "application/json")
                ->status,
            400);
  ASSERT_TRUE(eventually([&] { return api.state("cam2") == "running"; }, 30s)) << api.streams();
  EXPECT_NE(std::ifstream(dir / "streams.json").peek(), EOF);
  EXPECT_EQ(api.client().Delete("/api/v1/streams/cam2", api.auth())->status, 204);
  EXPECT_TRUE(api.stream("cam2").is_null());
  EXPECT_EQ(api.client().Delete("/api/v1/streams/cam2", api.auth())->status, 404);

  // SIGHUP: a stream added to the file starts; cam1 is not rebuilt.
  write_config("  - id: cam3\n    uri: " + shapes.video.string() + "\n");
  monitor.signal(SIGHUP);
  ASSERT_TRUE(eventually([&] { return api.state("cam3") == "running"; }, 30s))
      << api.streams() << monitor.log();
  EXPECT_EQ(api.stream("cam1")["retries"].get<uint64_t>(), retries_after_outage);
  EXPECT_EQ(api.state("cam1"), "running");

  // SIGTERM: clean exit, outputs flushed (every line is complete JSON).
  monitor.signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(30s), 0) << monitor.log();
  std::ifstream results(dir / "results.jsonl");
  std::string line;
  size_t lines = 0, cam1_lines = 0;
  while (std::getline(results, line)) {
    const json j = json::parse(line);  // throws (fails the test) on a torn line
    ++lines;
    if (j["stream_id"] == "cam1") ++cam1_lines;
  }
  EXPECT_GT(cam1_lines, 20u);
  EXPECT_GT(lines, cam1_lines);
  camera.stop();
}

// Permanent configuration errors are not camera outages: `--check` loads every model and fails
// on a file that does not load or a class the model lacks, and a running service reports such a
// stream `failed` at once (max_retries 0 would otherwise retry it forever) while the others run.
TEST(YoloMonitor, ConfigurationErrorsFailTheCheckAndTheStream) {
  const yolo::testing::TrainedShapes shapes = yolo::testing::trained_shapes_model();
  ASSERT_TRUE(fs::exists(shapes.model)) << "training did not produce " << shapes.model;
  if (shapes.video.empty()) GTEST_SKIP() << "no H.264 encoder for the synthetic video";
  const fs::path dir = fs::path(YOLO_BINARY_DIR) / "test-monitor-config-errors";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const int http_port = yolo::testing::free_port();
  auto write = [&](const fs::path& path, const std::string& model, const std::string& classes) {
    std::ofstream(path) << "model: " << model << "\ndevice: cpu\n"
                        << "http: {bind: 127.0.0.1, port: " << http_port << "}\n"
                        << "supervision: {max_retries: 0, backoff: {initial: 300ms, max: 1s}}\n"
                        << "streams:\n"
                        << "  - id: good\n    uri: " << shapes.video.string() << "\n"
                        << "  - id: odd\n    uri: " << shapes.video.string() << "\n"
                        << "    classes: " << classes << "\n";
  };
  auto check = [&](const fs::path& path) {
    return yolo::testing::run_command(std::string(YOLO_MONITOR_BIN) + " --config " + path.string() +
                                      " --check");
  };
  write(dir / "missing.yaml", (dir / "no-such-model.pt").string(), "[0]");
  auto r = check(dir / "missing.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no-such-model.pt' does not load"), std::string::npos) << r.output;

  write(dir / "badclass.yaml", shapes.model.string(), "[0, 99]");
  r = check(dir / "badclass.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("stream 'odd': class 99 is not in model"), std::string::npos) << r.output;

  write(dir / "good.yaml", shapes.model.string(), "[0]");
  r = check(dir / "good.yaml");
  EXPECT_EQ(r.exit_code, 0) << r.output;

  MonitorProcess monitor(dir / "badclass.yaml", dir / "monitor.log");
  ASSERT_TRUE(monitor.started());
  Api api(http_port, "");
  ASSERT_TRUE(eventually([&] { return api.state("odd") == "failed"; }, 60s)) << monitor.log();
  const std::string why = api.stream("odd")["last_error"].get<std::string>();
  EXPECT_NE(why.find("'99' is not a class of this model"), std::string::npos) << why;
  EXPECT_TRUE(eventually([&] { return api.state("good") == "running"; }, 60s)) << monitor.log();
  monitor.signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(60s), 0) << monitor.log();
}

// tracker: the stream's results carry track ids, and an object keeps its id from frame to frame
// (the trained model finds the video's 1..3 shapes in most frames); a misspelt tracker fails the
// check with the key and the nearest name.
TEST(YoloMonitor, TrackerGivesEachObjectOneIdOverTime) {
  const yolo::testing::TrainedShapes shapes = yolo::testing::trained_shapes_model();
  ASSERT_TRUE(fs::exists(shapes.model)) << "training did not produce " << shapes.model;
  if (shapes.video.empty()) GTEST_SKIP() << "no H.264 encoder for the synthetic video";
  const fs::path dir = fs::path(YOLO_BINARY_DIR) / "test-monitor-tracker";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const int http_port = yolo::testing::free_port();
  auto write = [&](const fs::path& path, const std::string& tracker) {
    std::ofstream(path) << "model: " << shapes.model.string() << "\ndevice: cpu\nconf: 0.1\n"
                        << "tracker: " << tracker << "\n"
                        << "http: {bind: 127.0.0.1, port: " << http_port << "}\n"
                        << "state_file: \"\"\n"
                        << "outputs:\n  jsonl: {path: " << (dir / "results.jsonl").string() << "}\n"
                        << "streams:\n  - id: cam\n    uri: " << shapes.video.string() << "\n";
  };
  write(dir / "typo.yaml", "bytetrak.yaml");
  const auto r = yolo::testing::run_command(std::string(YOLO_MONITOR_BIN) + " --config " +
                                            (dir / "typo.yaml").string() + " --check");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("tracker"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("did you mean bytetrack.yaml"), std::string::npos) << r.output;

  write(dir / "monitor.yaml", "bytetrack.yaml");
  MonitorProcess monitor(dir / "monitor.yaml", dir / "monitor.log");
  ASSERT_TRUE(monitor.started());
  auto tracked_results = [&] {
    std::ifstream in(dir / "results.jsonl");
    int n = 0;
    for (std::string line; std::getline(in, line);) n += line.find("track_id") != std::string::npos;
    return n;
  };
  ASSERT_TRUE(eventually([&] { return tracked_results() >= 60; }, 120s)) << monitor.log();
  monitor.signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(60s), 0) << monitor.log();

  std::ifstream in(dir / "results.jsonl");
  std::set<int64_t> ids;
  int boxes = 0;
  for (std::string line; std::getline(in, line);) {
    const json result = json::parse(line);  // kept: a range-for over a temporary's member dangles
    for (const auto& d : result["detections"]) {
      ASSERT_TRUE(d.contains("track_id")) << "an untracked box in a tracked stream: " << line;
      EXPECT_GE(d["track_id"].get<int64_t>(), 1);
      ids.insert(d["track_id"].get<int64_t>());
      ++boxes;
    }
  }
  // 1..3 shapes per frame: a tracker that gave new ids every frame would have as many ids as
  // boxes; one that follows them has a handful (the file replays, and each replay starts over).
  EXPECT_GE(boxes, 60);
  EXPECT_LE(ids.size() * 5, static_cast<size_t>(boxes)) << ids.size() << " ids over " << boxes;
}

// An Ultralytics .pt as the monitor's model (Ultralytics' DetectionModel holding the shapes
// detector's weights, written by its strip_optimizer): --check loads it, and the service detects
// the video's objects with the class names the .pt carries.
TEST(YoloMonitor, ServesAnUltralyticsPt) {
  YOLO_REQUIRE_ORACLE();
  const yolo::testing::TrainedShapes shapes = yolo::testing::trained_shapes_model();
  ASSERT_TRUE(fs::exists(shapes.model)) << "training did not produce " << shapes.model;
  if (shapes.video.empty()) GTEST_SKIP() << "no H.264 encoder for the synthetic video";
  const fs::path dir = fs::path(YOLO_BINARY_DIR) / "test-monitor-ultralytics-pt";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path pt = dir / "shapes.pt";
  ASSERT_TRUE(
      yolo::parity::oracle_json(
          "ultralytics_pt.py wrap '" + shapes.model.string() + "' '" + pt.string() + "'", dir)
          .is_object());
  std::ofstream(dir / "monitor.yaml")
      << "model: " << pt.string() << "\ndevice: cpu\nconf: 0.25\n"
      << "http: {bind: 127.0.0.1, port: " << yolo::testing::free_port() << "}\n"
      << "state_file: \"\"\n"
      << "outputs:\n  jsonl: {path: " << (dir / "results.jsonl").string() << "}\n"
      << "streams:\n  - id: cam\n    uri: " << shapes.video.string() << "\n";
  const auto check = yolo::testing::run_command(std::string(YOLO_MONITOR_BIN) + " --config " +
                                                (dir / "monitor.yaml").string() + " --check");
  EXPECT_EQ(check.exit_code, 0) << check.output;

  MonitorProcess monitor(dir / "monitor.yaml", dir / "monitor.log");
  ASSERT_TRUE(monitor.started());
  auto boxes = [&](std::set<std::string>* names) {
    std::ifstream in(dir / "results.jsonl");
    int n = 0;
    for (std::string line; std::getline(in, line);) {
      const json result = json::parse(line, nullptr, false);
      if (result.is_discarded()) continue;  // a line being written
      for (const auto& d : result["detections"]) {
        ++n;
        if (names) names->insert(d["class_name"].get<std::string>());
      }
    }
    return n;
  };
  ASSERT_TRUE(eventually([&] { return boxes(nullptr) >= 60; }, 120s)) << monitor.log();
  monitor.signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(60s), 0) << monitor.log();
  std::set<std::string> names;
  boxes(&names);
  EXPECT_EQ(names, std::set<std::string>{"rectangle"});
}

namespace {

// A vertical line the video's ground truth says an object crosses: at the midpoint between the
// x of the object that moves farthest sideways, at its first and its last frame. Pixels.
struct GroundTruthLine {
  double x = 0;
  int width = 0, height = 0;
};
GroundTruthLine line_an_object_crosses(const fs::path& labels) {
  std::map<int, std::pair<double, double>> first_last;  // id -> centre x at first, last sight
  GroundTruthLine g;
  std::ifstream in(labels);
  for (std::string line; std::getline(in, line);) {
    const json frame = json::parse(line);
    g.width = frame["width"];
    g.height = frame["height"];
    for (const auto& o : frame["objects"]) {
      const double cx = (o["x1"].get<double>() + o["x2"].get<double>()) / 2;
      auto [it, fresh] = first_last.emplace(o["track_id"].get<int>(), std::make_pair(cx, cx));
      if (!fresh) it->second.second = cx;
    }
  }
  double best = 0;
  for (const auto& [id, xs] : first_last) {
    if (std::abs(xs.second - xs.first) > best) {
      best = std::abs(xs.second - xs.first);
      g.x = (xs.first + xs.second) / 2;
    }
  }
  return g;
}

}  // namespace

// lines: and zones: on a stream: the monitor tracks it (bytetrack.yaml, as no tracker is set),
// counts the crossing the ground truth promises, and serves it as counts, events (HTTP long-poll),
// Prometheus counters and events in the JSON lines. Bad lines and zones fail --check with the
// key and what is allowed.
TEST(YoloMonitor, LinesAndZonesCountAndPublishEvents) {
  const yolo::testing::TrainedShapes shapes = yolo::testing::trained_shapes_model();
  ASSERT_TRUE(fs::exists(shapes.model)) << "training did not produce " << shapes.model;
  if (shapes.video.empty()) GTEST_SKIP() << "no H.264 encoder for the synthetic video";
  const GroundTruthLine gate = line_an_object_crosses(shapes.labels);
  ASSERT_GT(gate.width, 0);
  const fs::path dir = fs::path(YOLO_BINARY_DIR) / "test-monitor-analytics";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const int http_port = yolo::testing::free_port();
  auto write = [&](const fs::path& path, const std::string& analytics) {
    std::ofstream(path) << "model: " << shapes.model.string() << "\ndevice: cpu\nconf: 0.1\n"
                        << "http: {bind: 127.0.0.1, port: " << http_port << "}\n"
                        << "state_file: \"\"\n"
                        << "outputs:\n  jsonl: {path: " << (dir / "results.jsonl").string() << "}\n"
                        << "streams:\n  - id: cam\n    uri: " << shapes.video.string() << "\n"
                        << analytics;
  };
  auto check = [&](const std::string& analytics) {
    write(dir / "bad.yaml", analytics);
    return yolo::testing::run_command(std::string(YOLO_MONITOR_BIN) + " --config " +
                                      (dir / "bad.yaml").string() + " --check");
  };
  auto r = check("    zones: [{name: z, points: [[0, 0], [10, 10]]}]\n");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("at least 3 points"), std::string::npos) << r.output;
  r = check("    lines: [{name: l, points: [[0, 0], [10, 0]]}]\n    tracker: \"\"\n");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("need track ids"), std::string::npos) << r.output;
  r = check("    lines: [{name: l, pionts: [[0, 0], [10, 0]]}]\n");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("did you mean points"), std::string::npos) << r.output;

  write(
      dir / "monitor.yaml",
      fmt::format("    lines: [{{name: gate, points: [[{0}, 0], [{0}, {1}]]}}]\n"
                  "    zones: [{{name: all, points: [[0, 0], [{2}, 0], [{2}, {1}], [0, {1}]]}}]\n",
                  gate.x, gate.height, gate.width));
  MonitorProcess monitor(dir / "monitor.yaml", dir / "monitor.log");
  ASSERT_TRUE(monitor.started());
  httplib::Client client("127.0.0.1", http_port);
  client.set_read_timeout(30, 0);
  auto counts = [&] {
    auto res = client.Get("/api/v1/streams/cam/counts");
    return res && res->status == 200 ? json::parse(res->body) : json();
  };
  auto crossed = [&] {
    const json c = counts();
    return !c.is_null() && c["lines"][0]["in"].get<int>() + c["lines"][0]["out"].get<int>() >= 1;
  };
  ASSERT_TRUE(eventually(crossed, 120s)) << counts().dump() << "\n" << monitor.log();
  const json c = counts();
  std::printf("counts after the first crossing: %s\n", c.dump().c_str());
  EXPECT_EQ(c["lines"][0]["name"], "gate");
  EXPECT_GE(c["zones"][0]["entries"].get<int>(), 1) << c;
  EXPECT_FALSE(c.contains("analytics")) << "counting: no state to report" << c;
  auto listed = client.Get("/api/v1/streams");
  ASSERT_TRUE(listed);
  EXPECT_EQ(json::parse(listed->body)["streams"][0]["analytics"]["state"], "counting")
      << listed->body;

  auto res = client.Get("/api/v1/streams/cam/events?since=0");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const json events = json::parse(res->body)["events"];
  int crossings = 0;
  for (const auto& e : events) {
    EXPECT_EQ(e["stream_id"], "cam");
    EXPECT_GE(e["track_id"].get<int64_t>(), 1);
    EXPECT_TRUE(e.contains("timestamp"));
    crossings += e["type"] == "line_crossed";
  }
  EXPECT_GE(crossings, 1) << events.dump();
  auto metrics = client.Get("/api/v1/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("yolo_line_crossings_total{stream=\"cam\",line=\"gate\""),
            std::string::npos);
  EXPECT_NE(metrics->body.find("yolo_zone_occupancy{stream=\"cam\",zone=\"all\"}"),
            std::string::npos);
  monitor.signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(60s), 0) << monitor.log();

  std::ifstream in(dir / "results.jsonl");
  int lines_with_events = 0;
  for (std::string line; std::getline(in, line);)
    lines_with_events += json::parse(line).contains("events");
  EXPECT_GE(lines_with_events, 1);
}

// Analytics whose line lies outside the stream's frames are off, and every place a person reads
// counts or health says so with the reason (#57): /counts, the stream's /streams entry and
// /health. The stream itself keeps running.
TEST(YoloMonitor, AnalyticsThatDoNotFitTheFrameShowAsOff) {
  const yolo::testing::TrainedShapes shapes = yolo::testing::trained_shapes_model();
  ASSERT_TRUE(fs::exists(shapes.model)) << "training did not produce " << shapes.model;
  if (shapes.video.empty()) GTEST_SKIP() << "no H.264 encoder for the synthetic video";
  const fs::path dir = fs::path(YOLO_BINARY_DIR) / "test-monitor-analytics-off";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const int http_port = yolo::testing::free_port();
  std::ofstream(dir / "monitor.yaml")
      << "model: " << shapes.model.string() << "\ndevice: cpu\nconf: 0.1\n"
      << "http: {bind: 127.0.0.1, port: " << http_port << "}\nstate_file: \"\"\n"
      << "streams:\n  - id: cam\n    uri: " << shapes.video.string() << "\n"
      << "    lines: [{name: far, points: [[50000, 0], [50000, 100]]}]\n";
  MonitorProcess monitor(dir / "monitor.yaml", dir / "monitor.log");
  ASSERT_TRUE(monitor.started());
  Api api(http_port, "");
  auto get = [&](const std::string& path) {
    auto r = api.client().Get(path.c_str());
    return r && r->status == 200 ? json::parse(r->body) : json();
  };
  ASSERT_TRUE(eventually([&] { return get("/api/v1/health").contains("analytics_off"); }, 120s))
      << get("/api/v1/health").dump() << "\n"
      << monitor.log();
  const json health = get("/api/v1/health");
  EXPECT_NE(health["analytics_off"]["cam"].get<std::string>().find("far"), std::string::npos)
      << health.dump();
  const json counts = get("/api/v1/streams/cam/counts");
  EXPECT_EQ(counts["analytics"]["state"], "off") << counts.dump();
  EXPECT_FALSE(counts["analytics"]["reason"].get<std::string>().empty()) << counts.dump();
  const json streams = api.streams();
  ASSERT_FALSE(streams.is_null());
  EXPECT_EQ(streams["streams"][0]["analytics"]["state"], "off") << streams.dump();
  const int64_t frames = streams["streams"][0]["frames"].get<int64_t>();
  EXPECT_TRUE(eventually(
      [&] { return api.streams()["streams"][0]["frames"].get<int64_t>() > frames; }, 30s))
      << "the stream stopped with its analytics";
  // What is known survives the stream's rebuilds: the file ends every few seconds and is played
  // again; through two replays, while it reconnects and after, both endpoints say off.
  const int64_t retries = streams["streams"][0]["retries"].get<int64_t>();
  int observations = 0, while_reconnecting = 0;
  std::string said_otherwise;
  eventually(
      [&] {
        const json st = api.streams();
        const json c = get("/api/v1/streams/cam/counts");
        if (st.is_null() || c.is_null()) return false;
        const json& cam = st["streams"][0];
        ++observations;
        if (cam["state"] != "running") ++while_reconnecting;
        if (cam["analytics"]["state"] != "off" || c["analytics"]["state"] != "off")
          said_otherwise =
              "state " + cam["state"].get<std::string>() + ": " + cam.dump() + " / " + c.dump();
        return !said_otherwise.empty() || cam["retries"].get<int64_t>() >= retries + 2;
      },
      60s);
  EXPECT_EQ(said_otherwise, "") << "analytics not off after a rebuild";
  EXPECT_GE(api.streams()["streams"][0]["retries"].get<int64_t>(), retries + 2)
      << "the video did not replay twice";
  EXPECT_GT(while_reconnecting, 0) << observations << " observations, none while reconnecting";
  EXPECT_EQ(count_occurrences(monitor.log(), "analytics off"), 1u)
      << "said once, not at every replay:\n"
      << monitor.log();
  monitor.signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(60s), 0) << monitor.log();
}

// Four cameras counting and publishing to a real mosquitto (tests/serving's broker): every
// event and every result's detections (detections.every: 1) reach a subscriber at least once,
// through a broker restart in the middle. While the broker is away the video goes on (frames keep
// coming), /health says so, and nothing is dropped within the buffer; afterwards the buffered
// messages arrive. Payloads carry the schema version, kind, device id, tags and seq.
TEST(YoloMonitor, FourCamerasPublishToMqttThroughABrokerRestart) {
  if (yolo::testing::mosquitto_binary().empty()) GTEST_SKIP() << "mosquitto is not installed";
  const yolo::testing::TrainedShapes shapes = yolo::testing::trained_shapes_model();
  ASSERT_TRUE(fs::exists(shapes.model)) << "training did not produce " << shapes.model;
  if (shapes.video.empty()) GTEST_SKIP() << "no H.264 encoder for the synthetic video";
  const GroundTruthLine gate = line_an_object_crosses(shapes.labels);
  const fs::path dir = fs::path(YOLO_BINARY_DIR) / "test-monitor-mqtt";
  fs::remove_all(dir);
  fs::create_directories(dir);
  yolo::testing::MosquittoConfig broker_config;
  broker_config.persistence = true;  // the subscriber's session survives the restart
  yolo::testing::MosquittoTestBroker broker(dir / "broker", broker_config);
  broker.start();
  yolo::testing::MqttTestSubscriber subscriber(broker.port(), "test/#", "monitor-test-sub", true);
  ASSERT_TRUE(subscriber.wait_subscribed(10s));

  const int http_port = yolo::testing::free_port();
  std::ofstream config(dir / "monitor.yaml");
  config << "model: " << shapes.model.string() << "\ndevice: cpu\nconf: 0.1\n"
         << "http: {bind: 127.0.0.1, port: " << http_port << "}\nstate_file: \"\"\n"
         << "outputs:\n  jsonl: {path: " << (dir / "results.jsonl").string() << "}\n"
         << "  mqtt:\n    url: " << broker.url() << "\n    topic: test\n    device_id: box1\n"
         << "    detections: {every: 1}\n    tags: {site: lab}\nstreams:\n";
  for (int i = 0; i < 4; ++i) {
    config << fmt::format(
        "  - id: cam{}\n    uri: {}\n    lines: [{{name: gate, points: [[{}, 0], [{}, {}]]}}]\n"
        "    zones: [{{name: all, points: [[0, 0], [{}, 0], [{}, {}], [0, {}]]}}]\n",
        i, shapes.video.string(), gate.x, gate.x, gate.height, gate.width, gate.width, gate.height,
        gate.height);
  }
  config.close();
  MonitorProcess monitor(dir / "monitor.yaml", dir / "monitor.log");
  ASSERT_TRUE(monitor.started());
  Api api(http_port, "");
  auto health = [&] {
    auto r = api.client().Get("/api/v1/health");
    return r && r->status == 200 ? json::parse(r->body) : json();
  };
  auto frames = [&] {
    int64_t n = 0;
    const json all = api.streams();
    if (!all.is_null())
      for (const auto& s : all["streams"]) n += s["frames"].get<int64_t>();
    return n;
  };
  ASSERT_TRUE(eventually([&] { return subscriber.messages().size() >= 40; }, 120s))
      << monitor.log();

  broker.stop();
  ASSERT_TRUE(eventually([&] { return health()["mqtt"]["connected"] == false; }, 30s))
      << health().dump();
  const int64_t frames_at_stop = frames();
  std::this_thread::sleep_for(3s);
  const json away = health();
  EXPECT_GT(frames(), frames_at_stop + 10) << "the video stalled while the broker was away";
  EXPECT_GT(away["mqtt"]["queued"].get<int64_t>(), 0) << away.dump();
  EXPECT_FALSE(away["mqtt"]["last_error"].is_null()) << away.dump();

  broker.start();
  ASSERT_TRUE(eventually(
      [&] {
        const json h = health();
        return h["mqtt"]["connected"] == true && h["mqtt"]["queued"] == 0;
      },
      60s))
      << health().dump();
  // What the service says it published: every event in the store, every result in the JSON lines.
  std::map<std::string, std::set<int64_t>> events_expected, results_expected;
  for (int i = 0; i < 4; ++i) {
    const std::string id = "cam" + std::to_string(i);
    auto r = api.client().Get(("/api/v1/streams/" + id + "/events?since=0").c_str());
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    const json body = json::parse(r->body);
    EXPECT_EQ(body["missed"], 0);
    for (const auto& e : body["events"]) events_expected[id].insert(e["seq"].get<int64_t>());
  }
  const json last_health = health();
  EXPECT_EQ(last_health["mqtt"]["dropped"], 0) << last_health.dump();
  monitor.signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(60s), 0) << monitor.log();
  {
    std::ifstream in(dir / "results.jsonl");
    for (std::string line; std::getline(in, line);) {
      const json r = json::parse(line);
      results_expected[r["stream_id"].get<std::string>()].insert(r["seq"].get<int64_t>());
    }
  }
  size_t expected = 0;
  for (const auto& kv : events_expected) expected += kv.second.size();
  for (const auto& kv : results_expected) expected += kv.second.size();
  subscriber.wait_count(expected, 30s);

  std::map<std::string, std::set<int64_t>> events_got, results_got;
  size_t messages = 0;
  for (const std::string& payload : subscriber.messages()) {
    const json m = json::parse(payload);
    ++messages;
    ASSERT_EQ(m["schema_version"], 1) << payload;
    ASSERT_EQ(m["device_id"], "box1") << payload;
    ASSERT_EQ(m["tags"]["site"], "lab") << payload;
    const std::string stream = m["stream_id"];
    (m["kind"] == "event" ? events_got : results_got)[stream].insert(m["seq"].get<int64_t>());
  }
  size_t events_total = 0, results_total = 0;
  for (const auto& [id, seqs] : events_expected) {
    events_total += seqs.size();
    for (int64_t seq : seqs) EXPECT_TRUE(events_got[id].count(seq)) << id << " event " << seq;
  }
  for (const auto& [id, seqs] : results_expected) {
    results_total += seqs.size();
    for (int64_t seq : seqs) EXPECT_TRUE(results_got[id].count(seq)) << id << " result " << seq;
  }
  EXPECT_GE(events_total, 4u) << "the cameras' zones saw no one";
  std::printf(
      "published through a broker restart: %zu events and %zu results expected, %zu "
      "messages received\n",
      events_total, results_total, messages);
}

// While a stream's model loads (seconds on a busy box), the service answers and says so: /health
// has state "loading model" (and ready false), the stream lists activity "loading model", and its
// detections answer 503 with that state and Retry-After instead of "unknown stream"; then
// everything turns ready.
TEST(YoloMonitor, HealthSaysWhatTheServiceDoesWhileTheModelLoads) {
  const fs::path dir = fs::path(YOLO_BINARY_DIR) / "test-monitor-slow-model";
  fs::remove_all(dir);
  std::string export_log;
  const fs::path model = yolo::testing::export_slow_model(YOLO_TRAINER_BIN, dir, &export_log);
  ASSERT_FALSE(model.empty()) << export_log;
  auto video_options = yolo::testing::shapes_options(dir / "video");
  video_options.train_images = video_options.val_images = 0;
  const fs::path video = yolo::synth::generate_synthetic_dataset(video_options).video;
  if (video.empty()) GTEST_SKIP() << "no H.264 encoder for the synthetic video";

  const int http_port = yolo::testing::free_port();
  const fs::path config = dir / "monitor.yaml";
  std::ofstream(config) << "model: " << model.string() << "\ndevice: cpu\n"
                        << "http: {bind: 127.0.0.1, port: " << http_port << "}\n"
                        << "state_file: \"\"\n"
                        << "supervision: {start_timeout: 120s}\n"
                        << "streams:\n  - id: cam\n    uri: " << video.string() << "\n";
  MonitorProcess monitor(config, dir / "monitor.log");
  ASSERT_TRUE(monitor.started());
  httplib::Client client("127.0.0.1", http_port);
  client.set_connection_timeout(0, 200000);

  json health_while_loading, stream_while_loading, detections_while_loading;
  std::string retry_after;
  int detections_status = 0;
  const auto deadline = std::chrono::steady_clock::now() + 180s;
  bool ready = false;
  while (!ready && std::chrono::steady_clock::now() < deadline) {
    if (auto r = client.Get("/api/v1/health"); r && r->status == 200) {
      const json health = json::parse(r->body);
      if (health["state"] == "loading model" && health_while_loading.is_null()) {
        health_while_loading = health;
        if (auto s = client.Get("/api/v1/streams"); s && s->status == 200)
          stream_while_loading = json::parse(s->body)["streams"].at(0);
        if (auto d = client.Get("/api/v1/streams/cam/detections")) {
          detections_status = d->status;
          retry_after = d->get_header_value("Retry-After");
          detections_while_loading = json::parse(d->body, nullptr, false);
        }
      }
      ready = health["state"] == "ready";
      if (ready) {
        EXPECT_TRUE(health["ready"].get<bool>()) << health;
        EXPECT_EQ(health["streams"]["running"], 1) << health;
      }
    }
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_TRUE(ready) << monitor.log();
  ASSERT_FALSE(health_while_loading.is_null()) << "/health never said 'loading model'\n"
                                               << monitor.log();
  EXPECT_FALSE(health_while_loading["ready"].get<bool>()) << health_while_loading;
  EXPECT_EQ(health_while_loading["streams"]["starting"], 1) << health_while_loading;
  EXPECT_EQ(stream_while_loading.value("activity", ""), "loading model") << stream_while_loading;
  EXPECT_EQ(stream_while_loading.value("state", ""), "starting") << stream_while_loading;
  EXPECT_EQ(detections_status, 503) << detections_while_loading;
  EXPECT_EQ(retry_after, "1");
  ASSERT_TRUE(detections_while_loading.is_object());
  EXPECT_EQ(detections_while_loading["state"], "loading model") << detections_while_loading;
  EXPECT_NE(detections_while_loading["detail"].get<std::string>().find(model.filename().string()),
            std::string::npos)
      << detections_while_loading;
  // Running: the activity is gone and the detections are served.
  EXPECT_TRUE(eventually(
      [&] {
        auto d = client.Get("/api/v1/streams/cam/detections");
        return d && d->status == 200;
      },
      30s));
  auto s = client.Get("/api/v1/streams");
  ASSERT_TRUE(s);
  EXPECT_TRUE(json::parse(s->body)["streams"].at(0)["activity"].is_null()) << s->body;
  monitor.signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(30s), 0) << monitor.log();
}

// A stream whose model cannot load has stopped trying (#68): /health, /streams and the stream's
// detections agree that it failed and name the reason; none of them says "loading model" for it.
TEST(YoloMonitor, AStreamWhoseModelIsGoneIsFailedEverywhereWithTheReason) {
  const fs::path dir = fs::path(YOLO_BINARY_DIR) / "test-monitor-model-gone";
  fs::remove_all(dir);
  auto video_options = yolo::testing::shapes_options(dir / "video");
  video_options.train_images = video_options.val_images = 0;
  const fs::path video = yolo::synth::generate_synthetic_dataset(video_options).video;
  if (video.empty()) GTEST_SKIP() << "no H.264 encoder for the synthetic video";
  const fs::path gone = dir / "models" / "best.pt";  // never written

  const int http_port = yolo::testing::free_port();
  const fs::path config = dir / "monitor.yaml";
  std::ofstream(config) << "model: " << gone.string() << "\ndevice: cpu\n"
                        << "http: {bind: 127.0.0.1, port: " << http_port << "}\n"
                        << "state_file: \"\"\n"
                        << "streams:\n  - id: cam\n    uri: " << video.string() << "\n";
  MonitorProcess monitor(config, dir / "monitor.log");
  ASSERT_TRUE(monitor.started());
  httplib::Client client("127.0.0.1", http_port);
  client.set_connection_timeout(0, 200000);
  const auto get = [&](const std::string& path) {
    auto r = client.Get(path);
    return r ? json::parse(r->body, nullptr, false) : json();
  };
  ASSERT_TRUE(eventually(
      [&] {
        const json streams = get("/api/v1/streams");
        return streams.is_object() && streams["streams"].size() == 1 &&
               streams["streams"].at(0).value("state", "") == "failed";
      },
      90s))
      << monitor.log();
  const json stream = get("/api/v1/streams")["streams"].at(0);
  const json health = get("/api/v1/health");
  const json detections = get("/api/v1/streams/cam/detections");
  EXPECT_TRUE(stream["activity"].is_null()) << stream;
  EXPECT_NE(stream.value("last_error", "").find("best.pt"), std::string::npos) << stream;
  EXPECT_EQ(health["state"], "down") << health;
  EXPECT_EQ(health["streams"]["failed"], 1) << health;
  EXPECT_EQ(health["streams"].size(), 1u) << health;
  EXPECT_EQ(detections["state"], "failed") << detections;
  EXPECT_NE(detections.value("detail", "").find("best.pt"), std::string::npos) << detections;
  for (const json* j : {&stream, &health, &detections})
    EXPECT_EQ(j->dump().find("loading model"), std::string::npos) << *j;
  monitor.signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(30s), 0) << monitor.log();
}

// A camera that changes resolution 23 times in a row, played three times (about 70 changes):
// the stream never fails (every rebuild is the file's end), every size is inferred with its own
// frame size, and no frame reaches the element under another frame's caps (the leaky queue's
// guard; tests/media/test_leaky_queue.cpp forces the race itself).
TEST(YoloMonitor, ACameraThatChangesResolutionKeepsItsStream) {
  const yolo::testing::TrainedShapes shapes = yolo::testing::trained_shapes_model();
  ASSERT_TRUE(fs::exists(shapes.model)) << "training did not produce " << shapes.model;
  for (const char* factory : {"x264enc", "h264parse", "mpegtsmux"}) {
    if (GstElementFactory* f = gst_element_factory_find(factory)) {
      gst_object_unref(f);
    } else {
      GTEST_SKIP() << factory << " is not installed";
    }
  }
  const fs::path dir = fs::path(YOLO_BINARY_DIR) / "test-monitor-resolution";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // 64x64 and 128x48 are the pair of the report (6144 bytes against 9216).
  const std::vector<std::pair<int, int>> sizes = {{64, 64}, {128, 48}, {96, 96}, {160, 64}};
  const fs::path video = dir / "changes.ts";
  ASSERT_EQ(write_resolution_changes(video, sizes, 24, 20, 200), "");

  const int http_port = yolo::testing::free_port();
  std::ofstream(dir / "monitor.yaml")
      << "model: " << shapes.model.string() << "\ndevice: cpu\nconf: 0.1\n"
      << "http: {bind: 127.0.0.1, port: " << http_port << "}\nstate_file: \"\"\n"
      << "outputs:\n  jsonl: {path: " << (dir / "results.jsonl").string() << "}\n"
      << "streams:\n  - id: cam\n    uri: " << video.string() << "\n";
  MonitorProcess monitor(dir / "monitor.yaml", dir / "monitor.log");
  ASSERT_TRUE(monitor.started());
  Api api(http_port, "");
  std::set<std::string> errors;
  const bool replayed = eventually(
      [&] {
        const json cam = api.stream("cam");
        if (cam.is_null()) return false;
        if (cam.contains("last_error") && cam["last_error"].is_string())
          errors.insert(cam["last_error"].get<std::string>());
        return cam["retries"].get<int64_t>() >= 3;
      },
      180s);
  monitor.signal(SIGTERM);
  EXPECT_EQ(monitor.wait_exit(60s), 0) << monitor.log();
  ASSERT_TRUE(replayed) << monitor.log();
  for (const std::string& e : errors) EXPECT_EQ(e, "end of stream") << monitor.log();
  const std::string log = monitor.log();
  EXPECT_EQ(log.find("does not fit"), std::string::npos) << log;

  std::map<std::pair<int, int>, int> frames_per_size;
  std::ifstream in(dir / "results.jsonl");
  for (std::string line; std::getline(in, line);) {
    const json r = json::parse(line);
    const int w = r["width"].get<int>(), h = r["height"].get<int>();
    ++frames_per_size[{w, h}];
    for (const auto& d : r["detections"]) {
      EXPECT_LE(d["x2"].get<double>(), w) << line;
      EXPECT_LE(d["y2"].get<double>(), h) << line;
    }
  }
  for (const auto& size : sizes) {
    EXPECT_GT(frames_per_size[size], 0) << size.first << "x" << size.second << " never inferred";
  }
  EXPECT_EQ(frames_per_size.size(), sizes.size()) << "a frame at a size the video never had";
}
