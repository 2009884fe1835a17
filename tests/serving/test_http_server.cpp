// The HTTP endpoint through a real client on 127.0.0.1: every endpoint's status and JSON shape,
// bearer tokens, bad input (4xx with a JSON error, server still up), long-polls (wake, time-out,
// cap, limit, stop), snapshots as JPEG, /metrics as Prometheus text, concurrent clients.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <future>
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "raw_http.h"
#include "yolo/serving/http_server.h"
#include "yolo/serving/metrics_registry.h"
#include "yolo/serving/readiness_board.h"
#include "yolo/serving/results_store.h"
#include "yolo/serving/runtime_metrics.h"
#include "yolo/serving/snapshot_store.h"

using namespace std::chrono_literals;
using json = nlohmann::json;

namespace {

yolo::FrameResult result(const std::string& stream, int64_t frame) {
  yolo::FrameResult r;
  r.stream_id = stream;
  r.frame = frame;
  r.width = 320;
  r.height = 240;
  r.detections = {{40, 30, 200, 180, 0.9f, 0, "person"}};
  return r;
}

using yolo::testing::raw_exchange;

class HttpServerTest : public ::testing::Test {
 protected:
  static yolo::HttpServerOptions local_options() {
    yolo::HttpServerOptions o;
    o.port = 0;
    return o;
  }
  void start(yolo::HttpServerOptions o = local_options()) {
    server_ = std::make_unique<yolo::HttpServer>(o, store_, &snapshots_, &registry_);
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_connection_timeout(5s);
    c.set_read_timeout(30s);
    return c;
  }
  // GET path, expecting `status` and a JSON body (error bodies always carry error/hint/status).
  json get_json(const std::string& path, int status, const httplib::Headers& headers = {}) {
    auto res = client().Get(path, headers);
    EXPECT_TRUE(res) << path << ": " << httplib::to_string(res.error());
    if (!res) return {};
    EXPECT_EQ(res->status, status) << path << ": " << res->body;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json") << path;
    json j = json::parse(res->body, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << path << ": " << res->body;
    if (status >= 400) {
      EXPECT_TRUE(j.contains("error") && j["error"].is_string()) << res->body;
      EXPECT_TRUE(j.contains("hint") && j["hint"].is_string()) << res->body;
      EXPECT_EQ(j.value("status", 0), status) << res->body;
    }
    return j;
  }

  // Returns once the server counts `n` waiting long-polls (read from /metrics), so that tests
  // need not guess with sleeps.
  bool long_polls_waiting(int n) {
    const std::string line = fmt::format("yolo_http_long_polls_waiting {}\n", n);
    for (int i = 0; i < 1000; ++i) {
      auto res = client().Get("/api/v1/metrics");
      if (res && res->body.find(line) != std::string::npos) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }

  yolo::ResultsStore store_{5, 16};
  yolo::SnapshotStore snapshots_;
  yolo::MetricsRegistry registry_;
  std::unique_ptr<yolo::HttpServer> server_;  // last: stopped before what it serves goes away
};

}  // namespace

// Port 0 binds a free port on 127.0.0.1 by default and /health answers.
TEST_F(HttpServerTest, HealthOnAChosenPort) {
  start();
  EXPECT_GT(server_->port(), 0);
  EXPECT_EQ(server_->host(), "127.0.0.1");
  auto j = get_json("/api/v1/health", 200);
  EXPECT_EQ(j["status"], "ok");
  EXPECT_TRUE(j["version"].is_string());
  EXPECT_GE(j["uptime_s"].get<double>(), 0.0);
  // A second server gets another port.
  yolo::HttpServer other(local_options(), store_);
  EXPECT_NE(other.port(), server_->port());
}

// While a service starts, /health says how far each stream is (the least ready one decides),
// and a known stream without results answers 503 with its state instead of 404: Retry-After while
// the state is transient, none when it needs a person. Unknown streams stay 404.
TEST_F(HttpServerTest, StartUpStatesOnHealthAndEmptyStreams) {
  yolo::ReadinessBoard board;
  yolo::HttpServerOptions o = local_options();
  o.health_details = [&] { return board.to_json(); };
  o.stream_status = [&](const std::string& id) -> std::optional<yolo::StreamStatus> {
    if (id == "broken") return yolo::StreamStatus{"failed", "camera refused", false};
    const auto r = board.of(id);
    if (!r) return std::nullopt;
    return yolo::StreamStatus{yolo::to_string(r->state), r->detail, true};
  };
  start(o);

  json health = get_json("/api/v1/health", 200);
  EXPECT_EQ(health["status"], "ok");
  EXPECT_EQ(health["state"], "starting") << health;  // bound, nothing registered yet
  EXPECT_FALSE(health["ready"].get<bool>());

  board.set("cam1", yolo::Readiness::kLoadingModel, "'best.pt' on cpu");
  board.set("cam2", yolo::Readiness::kReady);
  health = get_json("/api/v1/health", 200);
  EXPECT_EQ(health["state"], "loading model") << health;
  EXPECT_FALSE(health["ready"].get<bool>());
  EXPECT_EQ(health["streams"]["cam1"]["detail"], "'best.pt' on cpu");
  EXPECT_EQ(health["streams"]["cam2"]["state"], "ready");

  auto res = client().Get("/api/v1/streams/cam1/detections");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 503);
  EXPECT_EQ(res->get_header_value("Retry-After"), "1");
  json why = get_json("/api/v1/streams/cam1/detections", 503);
  EXPECT_EQ(why["state"], "loading model");
  EXPECT_EQ(why["stream_id"], "cam1");
  EXPECT_NE(why["error"].get<std::string>().find("loading model ('best.pt' on cpu)"),
            std::string::npos)
      << why;
  EXPECT_EQ(get_json("/api/v1/streams/cam1/snapshot.jpg", 503)["state"], "loading model");

  // Failed for good: 503 without Retry-After, pointing at the stream's error.
  res = client().Get("/api/v1/streams/broken/detections");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 503);
  EXPECT_FALSE(res->has_header("Retry-After"));
  EXPECT_EQ(get_json("/api/v1/streams/broken/detections", 503)["detail"], "camera refused");
  // Nobody knows it: 404.
  EXPECT_EQ(get_json("/api/v1/streams/nobody/detections", 404)["stream_id"], "nobody");

  // Every stream ready: so is the service; a stream with results answers them.
  board.set("cam1", yolo::Readiness::kReady);
  store_.publish(result("cam1", 0));
  health = get_json("/api/v1/health", 200);
  EXPECT_EQ(health["state"], "ready");
  EXPECT_TRUE(health["ready"].get<bool>());
  EXPECT_EQ(get_json("/api/v1/streams/cam1/detections", 200)["stream_id"], "cam1");
  board.remove("cam2");
  EXPECT_EQ(get_json("/api/v1/health", 200)["streams"].size(), 1u);
}

// /streams lists every stream with its latest seq and whether a snapshot is kept.
TEST_F(HttpServerTest, StreamsListsLatest) {
  start();
  EXPECT_EQ(get_json("/api/v1/streams", 200)["streams"], json::array());
  store_.publish(result("cam1", 0));
  store_.publish(result("cam1", 1));
  store_.publish(result("cam2", 7));
  snapshots_.put(result("cam2", 7), cv::Mat(240, 320, CV_8UC3, cv::Scalar::all(90)));
  auto streams = get_json("/api/v1/streams", 200)["streams"];
  ASSERT_EQ(streams.size(), 2u);
  EXPECT_EQ(streams[0]["stream_id"], "cam1");
  EXPECT_EQ(streams[0]["latest_seq"], 2);
  EXPECT_EQ(streams[0]["frame"], 1);
  EXPECT_EQ(streams[0]["detections"], 1);
  EXPECT_EQ(streams[0]["snapshot"], false);
  EXPECT_TRUE(streams[0]["timestamp"].is_string());
  EXPECT_EQ(streams[1]["stream_id"], "cam2");
  EXPECT_EQ(streams[1]["snapshot"], true);
}

// Without since: the latest result, exactly as to_json(FrameResult); with since: newer ones,
// with the count of results that fell out of the history.
TEST_F(HttpServerTest, DetectionsLatestAndSince) {
  start();
  for (int f = 0; f < 8; ++f) store_.publish(result("cam1", f));  // history keeps seq 4..8
  auto j = get_json("/api/v1/streams/cam1/detections", 200);
  EXPECT_EQ(j["stream_id"], "cam1");
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"][0], yolo::to_json(*store_.latest("cam1")));
  EXPECT_EQ(j["results"][0]["detections"][0]["class_name"], "person");
  EXPECT_EQ(j["next_since"], 8);
  EXPECT_EQ(j["missed"], 0);

  j = get_json("/api/v1/streams/cam1/detections?since=6", 200);
  ASSERT_EQ(j["results"].size(), 2u);
  EXPECT_EQ(j["results"][0]["seq"], 7);
  EXPECT_EQ(j["next_since"], 8);
  EXPECT_EQ(j["missed"], 0);

  j = get_json("/api/v1/streams/cam1/detections?since=1", 200);
  ASSERT_EQ(j["results"].size(), 5u);
  EXPECT_EQ(j["results"][0]["seq"], 4);
  EXPECT_EQ(j["missed"], 2);  // seq 2 and 3 are gone

  j = get_json("/api/v1/streams/cam1/detections?since=8&wait=0", 200);
  EXPECT_EQ(j["results"], json::array());
  EXPECT_EQ(j["next_since"], 8);
}

// Bad parameters get 400 with a JSON error that names the parameter.
TEST_F(HttpServerTest, BadParametersGive400) {
  start();
  store_.publish(result("cam1", 0));
  const std::string base = "/api/v1/streams/cam1/detections";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"?since=abc", "since"},
      {"?since=-1", "since"},
      {"?since=", "since"},
      {"?since=1.5", "since"},
      {"?since=99999999999999999999", "since"},
      {"?since=0&wait=x", "wait"},
      {"?since=0&wait=-5", "wait"},
      {"?wait=100", "wait"},
      {"?sinse=1", "sinse"},
      {"?since=1&since=2", "since"},
      {"?since=5", "since"}};
  for (const auto& [query, parameter] : cases) {
    auto j = get_json(base + query, 400);
    EXPECT_EQ(j.value("parameter", ""), parameter) << query << ": " << j.dump();
  }
  EXPECT_EQ(get_json(base + "?since=5", 400)["latest_seq"], 1);  // ahead of the stream
  EXPECT_EQ(get_json("/api/v1/streams?x=1", 400)["allowed"], json::array());
  get_json("/api/v1/health?verbose=1", 400);
}

// Unknown streams and paths give 404 JSON; other methods on known paths 405 with Allow.
TEST_F(HttpServerTest, UnknownStreamPathAndMethod) {
  start();
  auto j = get_json("/api/v1/streams/nope/detections", 404);
  EXPECT_EQ(j["stream_id"], "nope");
  get_json("/api/v1/streams/nope/snapshot.jpg", 404);
  j = get_json("/api/v1/nothing", 404);
  EXPECT_FALSE(j["endpoints"].empty());
  EXPECT_NE(get_json("/api/v2/streams", 404)["hint"].get<std::string>().find("/api/v1"),
            std::string::npos);
  get_json("/", 404);
  get_json("/api/v1/streams/", 404);

  auto res = client().Post("/api/v1/streams", "{}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 405);
  EXPECT_EQ(res->get_header_value("Allow"), "GET, HEAD");
  EXPECT_FALSE(json::parse(res->body)["error"].get<std::string>().empty());
  res = client().Delete("/api/v1/streams/cam1/detections");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 405);
  res = client().Post("/elsewhere", "", "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  res = client().Head("/api/v1/health");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

// A long-poll returns as soon as another thread publishes, long before its wait is up.
TEST_F(HttpServerTest, LongPollWakesOnPublish) {
  start();
  store_.publish(result("cam1", 0));
  std::thread producer([&] {
    std::this_thread::sleep_for(200ms);
    store_.publish(result("cam1", 1));
  });
  const auto t0 = std::chrono::steady_clock::now();
  auto j = get_json("/api/v1/streams/cam1/detections?since=1&wait=20000", 200);
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  producer.join();
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"][0]["seq"], 2);
  EXPECT_EQ(j["next_since"], 2);
  EXPECT_LT(elapsed, 10s);
}

// Without a publish a long-poll answers 200 with no results once its wait (capped by max_wait)
// is up.
TEST_F(HttpServerTest, LongPollTimesOutAndWaitIsCapped) {
  auto o = local_options();
  o.max_wait = 300ms;
  start(o);
  store_.publish(result("cam1", 0));
  auto t0 = std::chrono::steady_clock::now();
  auto j = get_json("/api/v1/streams/cam1/detections?since=1&wait=200", 200);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 150ms);
  EXPECT_EQ(j["results"], json::array());
  EXPECT_EQ(j["next_since"], 1);
  t0 = std::chrono::steady_clock::now();
  j = get_json("/api/v1/streams/cam1/detections?since=1&wait=3600000", 200);  // capped to 300 ms
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
  EXPECT_EQ(j["results"], json::array());
}

// stop() ends waiting long-polls promptly (503) instead of waiting out their time.
TEST_F(HttpServerTest, StopWakesLongPolls) {
  auto o = local_options();
  o.max_wait = 60s;
  start(o);
  store_.publish(result("cam1", 0));
  auto poll = std::async(std::launch::async, [this, c = client()]() mutable {
    return c.Get("/api/v1/streams/cam1/detections?since=1&wait=60000");
  });
  ASSERT_TRUE(long_polls_waiting(1));
  const auto t0 = std::chrono::steady_clock::now();
  server_->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
  server_->stop();  // idempotent
  ASSERT_EQ(poll.wait_for(10s), std::future_status::ready);
  auto res = poll.get();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 503) << res->body;
  EXPECT_FALSE(client().Get("/api/v1/health"));  // no longer listening
}

// An idle kept-alive connection delays stop() by at most keep_alive_timeout.
TEST_F(HttpServerTest, StopWithAnIdleKeepAliveConnection) {
  auto o = local_options();
  o.keep_alive_timeout = 1s;
  start(o);
  auto c = client();
  c.set_keep_alive(true);
  auto res = c.Get("/api/v1/health");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  const auto t0 = std::chrono::steady_clock::now();
  server_->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
}

// Long-polls beyond max_long_polls get 503 with Retry-After; other requests still get through.
TEST_F(HttpServerTest, LongPollLimit) {
  auto o = local_options();
  o.threads = 4;
  o.max_long_polls = 1;
  start(o);
  store_.publish(result("cam1", 0));
  auto first = std::async(std::launch::async, [this, c = client()]() mutable {
    return c.Get("/api/v1/streams/cam1/detections?since=1&wait=20000");
  });
  ASSERT_TRUE(long_polls_waiting(1));
  auto res = client().Get("/api/v1/streams/cam1/detections?since=1&wait=20000");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 503) << res->body;
  EXPECT_EQ(res->get_header_value("Retry-After"), "1");
  get_json("/api/v1/health", 200);
  get_json("/api/v1/streams/cam1/detections?since=1", 200);  // no wait: no slot needed
  store_.publish(result("cam1", 1));
  auto got = first.get();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, 200);
}

// A long-poll whose client disconnects gives its slot back within a wait slice, not when its
// wait runs out (60 s here, while the test looks for 10 s): a new long-poll is served meanwhile.
TEST_F(HttpServerTest, LongPollOfAGoneClientFreesItsSlot) {
  auto o = local_options();
  o.threads = 4;
  o.max_long_polls = 1;
  o.max_wait = 60s;
  start(o);
  store_.publish(result("cam1", 0));
  {
    yolo::testing::RawConnection gone(server_->port());
    ASSERT_TRUE(gone.send(
        "GET /api/v1/streams/cam1/detections?since=1&wait=60000 HTTP/1.1\r\nHost: x\r\n\r\n"));
    ASSERT_TRUE(long_polls_waiting(1));
  }  // the client closes its connection without reading an answer
  ASSERT_TRUE(long_polls_waiting(0)) << "the abandoned long-poll still holds its slot";
  auto waiting = std::async(std::launch::async, [this, c = client()]() mutable {
    return c.Get("/api/v1/streams/cam1/detections?since=1&wait=20000");
  });
  ASSERT_TRUE(long_polls_waiting(1));
  store_.publish(result("cam1", 1));
  auto got = waiting.get();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, 200) << got->body;
}

// With a token: 401 with WWW-Authenticate without it or with a wrong one, 200 with it;
// /health stays open.
TEST_F(HttpServerTest, BearerToken) {
  auto o = local_options();
  o.bearer_token = "s3cret";
  start(o);
  store_.publish(result("cam1", 0));
  for (const std::string path : {"/api/v1/streams", "/api/v1/metrics", "/api/v1/nothing",
                                 "/api/v1/streams/cam1/detections"}) {
    auto res = client().Get(path);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 401) << path;
    EXPECT_EQ(res->get_header_value("WWW-Authenticate").rfind("Bearer", 0), 0u);
    EXPECT_EQ(json::parse(res->body)["error"], "missing bearer token");
  }
  for (const std::string header :
       {"Bearer wrong", "Bearer s3cret2", "Basic czNjcmV0", "Bearer ", "s3cret"}) {
    auto j = get_json("/api/v1/streams", 401, {{"Authorization", header}});
    EXPECT_FALSE(j.empty()) << header;
  }
  auto res = client().Get("/api/v1/streams", {{"Authorization", "Bearer wrong"}});
  ASSERT_TRUE(res);
  EXPECT_NE(res->get_header_value("WWW-Authenticate").find("invalid_token"), std::string::npos);
  get_json("/api/v1/streams", 200, {{"Authorization", "Bearer s3cret"}});
  get_json("/api/v1/streams/cam1/detections", 200, {{"Authorization", "bearer s3cret"}});
  get_json("/api/v1/health", 200);
}

// The snapshot is a decodable JPEG of the kept frame with the boxes drawn; 404 JSON without one.
TEST_F(HttpServerTest, Snapshot) {
  start();
  store_.publish(result("cam1", 0));
  get_json("/api/v1/streams/cam1/snapshot.jpg", 404);  // stream known, no frame kept
  snapshots_.put(result("cam1", 0), cv::Mat(240, 320, CV_8UC3, cv::Scalar(90, 90, 90)));
  auto res = client().Get("/api/v1/streams/cam1/snapshot.jpg");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "image/jpeg");
  const std::vector<unsigned char> bytes(res->body.begin(), res->body.end());
  const cv::Mat image = cv::imdecode(bytes, cv::IMREAD_COLOR);
  ASSERT_FALSE(image.empty());
  EXPECT_EQ(image.cols, 320);
  EXPECT_EQ(image.rows, 240);
  // The box's bottom edge (y = 180) is drawn in colour over the grey frame.
  const cv::Vec3b edge = image.at<cv::Vec3b>(180, 120), inside = image.at<cv::Vec3b>(120, 120);
  EXPECT_GT(cv::norm(cv::Vec3d(edge) - cv::Vec3d(inside)), 60.0);
  EXPECT_LT(cv::norm(cv::Vec3d(inside) - cv::Vec3d(90, 90, 90)), 20.0);

  // Without a snapshot store the endpoint says so.
  yolo::HttpServer bare(local_options(), store_);
  httplib::Client c("127.0.0.1", bare.port());
  res = c.Get("/api/v1/streams/cam1/snapshot.jpg");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  EXPECT_NE(json::parse(res->body)["error"].get<std::string>().find("not enabled"),
            std::string::npos);
}

// /metrics is Prometheus text: HELP/TYPE lines, then `name{labels} value` samples.
TEST_F(HttpServerTest, MetricsArePrometheusText) {
  yolo::RuntimeMetrics metrics(registry_);
  start();
  for (int i = 0; i < 3; ++i) metrics.frame_done("cam \"1\"", 20ms);
  metrics.frames_dropped("cam \"1\"", 2);
  metrics.batch_done("yolo26n", 3, 4, 15ms);
  get_json("/api/v1/health", 200);
  get_json("/api/v1/nothing", 404);

  std::map<std::string, std::string> types;
  std::map<std::string, double> values;
  // One scrape, parsed into types and values; false where the text is not Prometheus'.
  const auto scrape = [&]() -> bool {
    types.clear();
    values.clear();
    auto res = client().Get("/api/v1/metrics");
    if (!res || res->status != 200) {
      ADD_FAILURE() << "GET /api/v1/metrics failed";
      return false;
    }
    EXPECT_EQ(res->get_header_value("Content-Type").rfind("text/plain; version=0.0.4", 0), 0u);
    const std::regex comment(R"(# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*))");
    const std::regex sample(
        R"re(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")re"
        R"re((?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")*\})? (\S+))re");
    std::istringstream lines(res->body);
    for (std::string line; std::getline(lines, line);) {
      std::smatch m;
      if (std::regex_match(line, m, comment)) {
        if (m[1] == "TYPE") types[m[2]] = m[3];
        continue;
      }
      if (!std::regex_match(line, m, sample)) {
        ADD_FAILURE() << "not a Prometheus sample: " << line;
        return false;
      }
      // Histogram samples carry _bucket/_sum/_count after the family's name.
      std::string family = m[1];
      for (const std::string suffix : {"_bucket", "_sum", "_count"}) {
        if (family.size() <= suffix.size() ||
            family.compare(family.size() - suffix.size(), suffix.size(), suffix) != 0) {
          continue;
        }
        const std::string base = family.substr(0, family.size() - suffix.size());
        if (types.count(base) && types[base] == "histogram") {
          family = base;
          break;
        }
      }
      EXPECT_TRUE(types.count(family)) << "sample before its TYPE line: " << line;
      values[std::string(m[1]) + std::string(m[2])] = std::stod(m[3]);
    }
    return true;
  };
  // httplib counts a response (its logger) just after sending it, so the client may scrape
  // before the two above are counted: scrape until they are, a bounded number of times.
  const std::string ok = R"(yolo_http_requests_total{code="200"})";
  const std::string not_found = R"(yolo_http_requests_total{code="404"})";
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(scrape());
    if (values[ok] >= 1 && values[not_found] >= 1) break;
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(types["yolo_stream_frames_total"], "counter");
  EXPECT_EQ(types["yolo_stream_latency_seconds"], "histogram");
  EXPECT_EQ(types["yolo_stream_fps"], "gauge");
  EXPECT_EQ(values[R"(yolo_stream_frames_total{stream="cam \"1\""})"], 3);
  EXPECT_EQ(values[R"(yolo_stream_dropped_frames_total{stream="cam \"1\""})"], 2);
  EXPECT_EQ(values[R"(yolo_stream_latency_seconds_count{stream="cam \"1\""})"], 3);
  EXPECT_EQ(values[R"(yolo_stream_latency_seconds_bucket{stream="cam \"1\"",le="0.025"})"], 3);
  EXPECT_EQ(values[R"(yolo_stream_latency_seconds_bucket{stream="cam \"1\"",le="0.01"})"], 0);
  EXPECT_EQ(values[R"(yolo_stream_latency_seconds_bucket{stream="cam \"1\"",le="+Inf"})"], 3);
  EXPECT_EQ(values[R"(yolo_model_batches_total{model="yolo26n"})"], 1);
  EXPECT_EQ(values[R"(yolo_model_batch_fill_ratio_bucket{model="yolo26n",le="0.75"})"], 1);
  // The server's own: responses by code (a scrape is counted after it is sent), long-polls.
  EXPECT_GE(values[ok], 1);
  EXPECT_EQ(values[not_found], 1);
  EXPECT_EQ(values["yolo_http_long_polls_waiting"], 0);
  EXPECT_EQ(types["yolo_http_long_polls_waiting"], "gauge");
}

// Several clients at once, while a producer publishes: every request is answered correctly.
TEST_F(HttpServerTest, ConcurrentClients) {
  yolo::RuntimeMetrics metrics(registry_);
  start();
  store_.publish(result("cam1", 0));
  std::atomic<bool> done{false};
  std::thread producer([&] {
    for (int f = 1; !done; ++f) {
      store_.publish(result("cam1", f));
      metrics.frame_done("cam1", 5ms);
      std::this_thread::sleep_for(2ms);
    }
  });
  constexpr int kClients = 6, kRequests = 25;
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      auto cli = client();
      const char* paths[] = {"/api/v1/health", "/api/v1/streams", "/api/v1/metrics",
                             "/api/v1/streams/cam1/detections",
                             "/api/v1/streams/cam1/detections?since=1&wait=1000"};
      for (int i = 0; i < kRequests; ++i) {
        auto res = cli.Get(paths[(c + i) % 5]);
        if (res && res->status == 200 && !res->body.empty()) ++ok;
      }
    });
  }
  for (auto& t : clients) t.join();
  done = true;
  producer.join();
  EXPECT_EQ(ok, kClients * kRequests);
}

// Garbage, oversized bodies and very long paths get 4xx; the server keeps serving.
TEST_F(HttpServerTest, BadRequestsDoNotTakeTheServerDown) {
  auto o = local_options();
  o.max_payload_bytes = 1024;
  o.read_timeout = 1s;  // for the truncated request below
  start(o);
  const std::string garbage = raw_exchange(server_->port(), "GARBAGE\r\n\r\n");
  EXPECT_EQ(garbage.rfind("HTTP/1.1 400", 0), 0u) << garbage;
  EXPECT_NE(garbage.find("\"error\""), std::string::npos) << garbage;
  raw_exchange(server_->port(), std::string("\0\xff\r\n\r\n\x01", 7));
  raw_exchange(server_->port(), "GET /api/v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 99");

  auto res = client().Post("/api/v1/streams", std::string(4096, 'x'), "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_NE(json::parse(res->body)["error"].get<std::string>().find("too large"),
            std::string::npos);

  // A long stream id: unknown stream (404); longer than httplib's URI limit: 414.
  get_json("/api/v1/streams/" + std::string(7000, 'a') + "/detections", 404);
  res = client().Get("/api/v1/streams/" + std::string(20000, 'a') + "/detections");
  if (res) {  // or the server closed the connection
    EXPECT_GE(res->status, 400);
  }
  // Invalid UTF-8 in a stream id comes back as valid JSON.
  get_json("/api/v1/streams/%FF%FE/detections", 404);
  get_json("/api/v1/health", 200);
}

// Status codes as RFC 9110 defines them for what httplib refuses before any handler runs: a
// known method that no resource here serves is 405 with Allow (404 off the API), a method the
// server does not know is 501, a header too large is 431, a request whose headers do not arrive
// within the read timeout is 408. Each answer is JSON, and the server keeps serving.
TEST_F(HttpServerTest, MethodAndHeaderRefusalsFollowRfc9110) {
  auto o = local_options();
  o.read_timeout = 1s;  // for the stalled request below
  start(o);
  const int port = server_->port();
  const auto status_of = [](const std::string& reply) {
    return reply.size() >= 12 ? reply.substr(9, 3) : reply;
  };
  const auto body_of = [](const std::string& reply) {
    const auto at = reply.find("\r\n\r\n");
    return at == std::string::npos ? json() : json::parse(reply.substr(at + 4), nullptr, false);
  };
  for (const char* method : {"TRACE", "CONNECT"}) {
    const std::string reply = yolo::testing::raw_exchange(
        port, std::string(method) + " /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(status_of(reply), "405") << reply;
    EXPECT_NE(reply.find("\r\nAllow: GET, HEAD\r\n"), std::string::npos) << reply;
    EXPECT_EQ(body_of(reply).value("allowed_methods", json::array()), json({"GET", "HEAD"}))
        << reply;
    const std::string elsewhere = yolo::testing::raw_exchange(
        port, std::string(method) + " /elsewhere HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(status_of(elsewhere), "404") << elsewhere;
  }
  for (const char* method : {"PROPFIND", "FOO", "BREW"}) {
    const std::string reply = yolo::testing::raw_exchange(
        port, std::string(method) + " /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(status_of(reply), "501") << reply;
    const json body = body_of(reply);
    EXPECT_NE(body.value("error", "").find(method), std::string::npos) << reply;
    EXPECT_EQ(body.value("method", ""), method) << reply;
  }
  // Not a method at all (no request line of three parts): still a malformed request.
  EXPECT_EQ(status_of(yolo::testing::raw_exchange(port, "GARBAGE\r\n\r\n")), "400");
  EXPECT_EQ(status_of(yolo::testing::raw_exchange(port, "G(T / HTTP/1.1\r\n\r\n")), "400");
  // A version other than HTTP/1.x is 505; HTTP/1.0 is served.
  const std::string http2 =
      yolo::testing::raw_exchange(port, "GET /api/v1/health HTTP/2.0\r\nHost: x\r\n\r\n");
  EXPECT_EQ(status_of(http2), "505") << http2;
  EXPECT_EQ(body_of(http2).value("version", ""), "HTTP/2.0") << http2;
  EXPECT_EQ(status_of(yolo::testing::raw_exchange(port, "GET /api/v1/health HTTP/1.0\r\n\r\n")),
            "200");

  // One header of 100 KB (httplib reads at most 8 KiB per header line).
  const std::string big = yolo::testing::raw_exchange(
      port,
      "GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(100000, 'a') + "\r\n\r\n");
  EXPECT_EQ(status_of(big), "431") << big.substr(0, 300);
  EXPECT_NE(body_of(big).value("error", "").find("header"), std::string::npos) << big;

  // Headers that stop half-way: the read timeout answers 408, not 431.
  yolo::testing::RawConnection stalled(port);
  ASSERT_TRUE(stalled.send("GET /api/v1/health HTTP/1.1\r\nHost: x\r\n"));
  const std::string timed_out = stalled.receive(10);
  EXPECT_EQ(status_of(timed_out), "408") << timed_out;

  get_json("/api/v1/health", 200);
}

// Clients that send half a request hold a worker each until the read timeout; with a fixed pool of
// 8 workers, 40 of them kept /health waiting for ~20 s. Workers are added for them instead, so
// /health and a normal client are answered while all 40 still hang.
TEST_F(HttpServerTest, HalfSentRequestsDoNotStarveOtherClients) {
  auto o = local_options();
  o.read_timeout = 20s;  // the stalled clients hold their workers for the whole test
  start(o);
  std::vector<int> stalled;
  for (int i = 0; i < 40; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(server_->port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    const std::string half = "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n";  // no blank line
    ::send(fd, half.data(), half.size(), MSG_NOSIGNAL);
    stalled.push_back(fd);
  }
  auto c = client();
  c.set_read_timeout(10s);  // well inside the stalled clients' 20 s
  auto res = c.Get("/api/v1/health");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  store_.publish(result("cam1", 0));
  get_json("/api/v1/streams", 200);
  for (int fd : stalled) ::close(fd);
}

// Unusable options and an address in use fail at construction with messages that say so.
TEST_F(HttpServerTest, BadOptionsAndBindFailure) {
  start();
  auto o = local_options();
  o.port = server_->port();
  try {
    yolo::HttpServer clash(o, store_);
    FAIL() << "bound a port in use";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(o.port)), std::string::npos) << e.what();
  }
  o = local_options();
  o.max_long_polls = o.threads;
  EXPECT_THROW({ yolo::HttpServer s(o, store_); }, std::invalid_argument);
  o = local_options();
  o.port = 70000;
  EXPECT_THROW({ yolo::HttpServer s(o, store_); }, std::invalid_argument);
  o = local_options();
  o.host = "192.0.2.1";  // TEST-NET-1: numeric (no DNS), not an address of this machine
  EXPECT_THROW({ yolo::HttpServer s(o, store_); }, std::runtime_error);
}
