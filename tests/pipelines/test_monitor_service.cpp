// The whole service without the yolo element (identity in its place): configuration in,
// pipelines against the in-process RTSP server, results and snapshots over HTTP, streams added
// and removed over the API and persisted, Prometheus metrics of the streams, a reload that adds a
// stream, JSON lines flushed on stop, and systemd told READY/STOPPING.
#include <gst/gst.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <fmt/format.h>

#include <fstream>
#include <functional>
#include <set>
#include <thread>

#include "rtsp_test_server.h"
#include "test_files.h"
#include "yolo/monitor/monitor_service.h"
#include "yolo/serving/results_store.h"

using namespace std::chrono_literals;
using json = nlohmann::json;

namespace {

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(50ms);
  }
  return condition();
}

}  // namespace

TEST(MonitorService, EndToEndWithoutTheElement) {
  gst_init(nullptr, nullptr);
  yolo::testing::RtspTestServer camera;
  camera.start();
  yolo::testing::TempDir dir("monitor_service");
  // A notify socket standing in for systemd.
  const std::string notify_path = (dir.path / "notify.sock").string();
  const int notify_fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", notify_path.c_str());
  ASSERT_EQ(::bind(notify_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  timeval timeout{0, 200000};
  ::setsockopt(notify_fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  const auto notifications = [&] {
    std::set<std::string> got;
    char buf[512];
    for (ssize_t n; (n = ::recv(notify_fd, buf, sizeof buf, 0)) > 0;) {
      got.insert(std::string(buf, static_cast<size_t>(n)));
    }
    return got;
  };

  const std::string yaml = fmt::format(R"(
model: test-model.pt
http: {{bind: 127.0.0.1, port: 0, token: tok}}
rtsp: {{latency: 50ms}}
outputs:
  jsonl: {{path: "{0}/out/results.jsonl"}}
  snapshots: {{live_interval: 0}}
supervision: {{stall_timeout: 2s, start_timeout: 5s, backoff: {{initial: 100ms, max: 400ms}}}}
state_file: "{0}/state/streams.json"
streams:
  - {{id: cam1, uri: "{1}"}}
)",
                                       dir.path.string(), camera.uri());
  std::vector<std::string> fragments;
  std::mutex fragments_mutex;
  auto service = std::make_unique<yolo::monitor::MonitorService>(
      yolo::monitor::parse_config(yaml),
      [&](const yolo::monitor::StreamConfig& s, const yolo::monitor::StreamSettings& settings) {
        std::lock_guard<std::mutex> lock(fragments_mutex);
        fragments.push_back(s.id + ":" + settings.model);
        return std::vector<yolo::monitor::ElementSpec>{{"identity", "", {}}};
      },
      yolo::monitor::SystemdNotifier(notify_path));
  EXPECT_EQ(notifications().count("READY=1"), 1u);

  httplib::Client http("127.0.0.1", service->http_port());
  http.set_read_timeout(10s);
  const httplib::Headers auth = {{"Authorization", "Bearer tok"}};
  const auto streams = [&] {
    auto res = http.Get("/api/v1/streams", auth);
    return res && res->status == 200 ? json::parse(res->body)["streams"] : json::array();
  };
  ASSERT_TRUE(eventually([&] {
    const json s = streams();
    return s.size() == 1 && s[0]["state"] == "running" && !s[0]["latest_seq"].is_null();
  })) << streams().dump();
  ASSERT_TRUE(eventually([&] {
    auto res = http.Get("/api/v1/streams/cam1/snapshot.jpg", auth);
    return res && res->status == 200 && res->get_header_value("Content-Type") == "image/jpeg";
  }));
  EXPECT_EQ(http.Get("/")->status, 200);  // the dashboard

  // Prometheus metrics of the streams, what people scrape the service for.
  const auto metrics = [&] {
    auto r = http.Get("/api/v1/metrics", auth);
    return r && r->status == 200 ? r->body : std::string();
  };
  ASSERT_TRUE(eventually([&] {  // a first fps window has passed
    const std::string t = metrics();
    return t.find("yolo_monitor_stream_fps{stream=\"cam1\"} ") != std::string::npos &&
           t.find("yolo_monitor_stream_fps{stream=\"cam1\"} 0\n") == std::string::npos;
  })) << metrics();
  std::string text = metrics();
  EXPECT_NE(text.find("yolo_monitor_stream_state{stream=\"cam1\",state=\"running\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("yolo_monitor_stream_state{stream=\"cam1\",state=\"failed\"} 0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("yolo_monitor_streams 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE yolo_monitor_stream_frames_total counter"), std::string::npos);
  EXPECT_NE(text.find("yolo_monitor_stream_last_frame_age_seconds{stream=\"cam1\"}"),
            std::string::npos);
  EXPECT_EQ(text.find("yolo_monitor_stream_frames_total{stream=\"cam1\"} 0\n"), std::string::npos)
      << text;

  // Add over the API (the default model applies), then remove the configured stream.
  auto res = http.Post("/api/v1/streams", auth, json{{"id", "cam2"}, {"uri", camera.uri()}}.dump(),
                       "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 201) << res->body;
  EXPECT_EQ(http.Post("/api/v1/streams", auth, R"({"id": "cam2", "uri": "rtsp://x/y"})",
                      "application/json")
                ->status,
            409);
  EXPECT_EQ(
      http.Post("/api/v1/streams", auth, R"({"id": "cam3", "uri": "ftp://x"})", "application/json")
          ->status,
      400);
  ASSERT_TRUE(eventually([&] { return service->results().has_stream("cam2"); }));
  EXPECT_EQ(http.Delete("/api/v1/streams/cam1", auth)->status, 204);
  EXPECT_FALSE(service->results().has_stream("cam1"));  // its results went with it
  const json state = json::parse(yolo::testing::read_file(dir.path / "state" / "streams.json"));
  EXPECT_EQ(state["added"][0]["id"], "cam2");
  EXPECT_EQ(state["removed"], json::array({"cam1"}));
  text = metrics();  // the removed stream's series went with it
  EXPECT_EQ(text.find("stream=\"cam1\""), std::string::npos) << text;
  EXPECT_NE(text.find("stream=\"cam2\""), std::string::npos) << text;

  // SIGHUP with a configuration that adds cam4 (cam1 stays removed: the state file says so).
  auto reloaded = yolo::monitor::parse_config(
      yaml + fmt::format("  - {{id: cam4, uri: \"{}\", model: other.pt}}\n", camera.uri()));
  const auto summary = service->reload(reloaded);
  EXPECT_EQ(summary.added, std::vector<std::string>{"cam4"});
  EXPECT_TRUE(summary.removed.empty());
  EXPECT_TRUE(summary.restarted.empty());
  EXPECT_EQ(service->streams().ids(), (std::vector<std::string>{"cam2", "cam4"}));
  ASSERT_TRUE(eventually([&] { return service->results().has_stream("cam4"); }));
  {
    std::lock_guard<std::mutex> lock(fragments_mutex);
    // cam2's fragment is built again on reload to see whether its pipeline changed (it did not).
    EXPECT_EQ(fragments, (std::vector<std::string>{"cam1:test-model.pt", "cam2:test-model.pt",
                                                   "cam4:other.pt", "cam2:test-model.pt"}));
  }

  service->stop();
  EXPECT_EQ(notifications().count("STOPPING=1"), 1u);
  std::ifstream lines(dir.path / "out" / "results.jsonl");
  std::set<std::string> ids;
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    ids.insert(json::parse(line)["stream_id"].get<std::string>());  // every line whole
  }
  EXPECT_GT(n, 3);
  EXPECT_EQ(ids, (std::set<std::string>{"cam1", "cam2", "cam4"}));
  EXPECT_FALSE(http.Get("/api/v1/health"));  // no longer serving
  service.reset();
  ::close(notify_fd);
}

// A configuration the service cannot honour fails at construction with nothing left running.
TEST(MonitorService, StartupFailuresLeaveNothingRunning) {
  gst_init(nullptr, nullptr);
  yolo::testing::TempDir dir("monitor_service_fail");
  yolo::testing::write_file(dir.path / "streams.json", "{corrupt");
  auto config = yolo::monitor::parse_config("model: m.pt\nhttp: {port: 0}\nstate_file: \"" +
                                            (dir.path / "streams.json").string() +
                                            "\"\nstreams: [{id: a, uri: /x.mp4}]\n");
  const auto identity = [](const auto&, const auto&) {
    return std::vector<yolo::monitor::ElementSpec>{{"identity", "", {}}};
  };
  EXPECT_THROW(yolo::monitor::MonitorService(config, identity), yolo::monitor::ConfigError);
  config.state_file.clear();
  config.http.bind = "192.0.2.1";  // not an address of this machine
  EXPECT_THROW(yolo::monitor::MonitorService(config, identity), std::runtime_error);
}
