// The stream-control endpoints with a fake controller, through a real client: GET /streams
// merges each stream's state and stats with its results, POST adds (201/400/409), DELETE
// removes (204/404), the token guards them, and the dashboard page is served at /.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "raw_http.h"
#include "yolo/serving/http_server.h"
#include "yolo/serving/results_store.h"
#include "yolo/serving/snapshot_store.h"
#include "yolo/serving/stream_control.h"

using namespace std::chrono_literals;
using json = nlohmann::json;
using Status = yolo::StreamControlResult::Status;

namespace {

// Streams in a map; "bad" uris are invalid, to exercise the 400 path.
class FakeControl : public yolo::StreamControl {
 public:
  json list() override {
    std::lock_guard<std::mutex> lock(mutex_);
    json out = json::array();
    for (const auto& [id, uri] : streams_) {
      out.push_back({{"id", id}, {"uri", uri}, {"state", "running"}, {"fps", 12.5}});
    }
    return out;
  }
  yolo::StreamControlResult add(const json& stream) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string id = stream.value("id", "");
    const std::string uri = stream.value("uri", "");
    if (id.empty() || uri.rfind("rtsp://", 0) != 0) {
      return yolo::StreamControlResult::failure(
          Status::kInvalid, "uri: unsupported", "use rtsp://",
          {{"problems", json::array({{{"path", "uri"}, {"message", "unsupported"}}})}});
    }
    if (streams_.count(id)) {
      return yolo::StreamControlResult::failure(Status::kConflict, "stream '" + id + "' exists",
                                                "DELETE it first or choose another id");
    }
    streams_[id] = uri;
    return yolo::StreamControlResult::ok({{"id", id}, {"uri", uri}, {"state", "starting"}});
  }
  yolo::StreamControlResult remove(const std::string& id) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!streams_.erase(id)) return yolo::StreamControlResult::failure(Status::kNotFound, "", "");
    return yolo::StreamControlResult::ok();
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::string> streams_ = {{"cam1", "rtsp://a/1"}};
};

class StreamControlTest : public ::testing::Test {
 protected:
  void start(const std::string& token = "", const std::string& dashboard = "",
             std::chrono::milliseconds read_timeout = 5s) {
    yolo::HttpServerOptions o;
    o.port = 0;
    o.read_timeout = read_timeout;
    o.bearer_token = token;
    o.dashboard_html = dashboard;
    server_ = std::make_unique<yolo::HttpServer>(o, store_, &snapshots_, nullptr, &control_);
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_connection_timeout(5s);
    c.set_read_timeout(10s);
    return c;
  }

  yolo::ResultsStore store_{5, 16};
  yolo::SnapshotStore snapshots_;
  FakeControl control_;
  std::unique_ptr<yolo::HttpServer> server_;  // last: stopped first
};

}  // namespace

// GET lists every controlled stream (also one without results) with its state and stats, plus
// the results summary where there is one.
TEST_F(StreamControlTest, ListMergesStateAndResults) {
  start();
  yolo::FrameResult r;
  r.stream_id = "cam1";
  r.frame = 42;
  r.detections = {{1, 2, 3, 4, 0.5f, 0, "person"}};
  store_.publish(r);
  store_.publish([] {
    yolo::FrameResult o;
    o.stream_id = "orphan";  // results of a stream the controller does not know: not listed
    return o;
  }());
  auto res = client().Get("/api/v1/streams");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const json list = json::parse(res->body)["streams"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["id"], "cam1");
  EXPECT_EQ(list[0]["stream_id"], "cam1");
  EXPECT_EQ(list[0]["state"], "running");
  EXPECT_EQ(list[0]["fps"], 12.5);
  EXPECT_EQ(list[0]["frame"], 42);
  EXPECT_EQ(list[0]["detections"], 1);

  ASSERT_EQ(
      client()
          .Post("/api/v1/streams", R"({"id": "cam2", "uri": "rtsp://b/2"})", "application/json")
          ->status,
      201);
  const json two = json::parse(client().Get("/api/v1/streams")->body)["streams"];
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[1]["id"], "cam2");
  EXPECT_TRUE(two[1]["latest_seq"].is_null());  // no results yet
}

// POST: 201 with the new stream and a Location, 400 for a bad object or body, 409 for a taken id.
TEST_F(StreamControlTest, AddStream) {
  start();
  auto res = client().Post("/api/v1/streams", R"({"id": "cam2", "uri": "rtsp://b/2"})",
                           "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 201) << res->body;
  EXPECT_EQ(res->get_header_value("Location"), "/api/v1/streams/cam2");
  EXPECT_EQ(json::parse(res->body)["stream"]["state"], "starting");

  // As `curl -d '{...}'` sends it (labelled as a form): still the JSON body (the README's example).
  res = client().Post("/api/v1/streams", R"({"id": "cam5", "uri": "rtsp://e/5"})",
                      "application/x-www-form-urlencoded");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 201) << res->body;

  res = client().Post("/api/v1/streams", R"({"id": "cam2", "uri": "rtsp://c/2"})",
                      "application/json");
  EXPECT_EQ(res->status, 409);
  EXPECT_NE(json::parse(res->body)["error"].get<std::string>().find("exists"), std::string::npos);

  res = client().Post("/api/v1/streams", R"({"id": "cam3", "uri": "ftp://x"})", "application/json");
  EXPECT_EQ(res->status, 400);
  const json invalid = json::parse(res->body);
  EXPECT_EQ(invalid["problems"][0]["path"], "uri");  // the controller's details pass through
  EXPECT_EQ(invalid["hint"], "use rtsp://");

  for (const char* body : {"not json", "[1, 2]", ""}) {
    res = client().Post("/api/v1/streams", body, "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400) << body;
    EXPECT_NE(json::parse(res->body)["error"].get<std::string>().find("JSON object"),
              std::string::npos);
  }
  // A body up to the default limit is accepted (413 only beyond it).
  json big = {{"id", "cam4"}, {"uri", "rtsp://d/" + std::string(8000, 'p')}};
  EXPECT_EQ(client().Post("/api/v1/streams", big.dump(), "application/json")->status, 201);
}

// DELETE: 204, then 404 for the same id; other methods on /streams say what is allowed.
TEST_F(StreamControlTest, RemoveStream) {
  start();
  auto res = client().Delete("/api/v1/streams/cam1");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 204);
  EXPECT_TRUE(res->body.empty());
  res = client().Delete("/api/v1/streams/cam1");
  EXPECT_EQ(res->status, 404);
  const json j = json::parse(res->body);
  EXPECT_EQ(j["stream_id"], "cam1");
  EXPECT_NE(j["error"].get<std::string>().find("cam1"), std::string::npos);
  res = client().Put("/api/v1/streams", "{}", "application/json");
  EXPECT_EQ(res->status, 405);
  EXPECT_EQ(res->get_header_value("Allow"), "GET, HEAD, POST");
}

// With a token, stream control needs it like every endpoint; the dashboard page does not.
TEST_F(StreamControlTest, TokenGuardsControlNotThePage) {
  start("s3cret", "<!doctype html><title>dash</title>");
  auto res = client().Post("/api/v1/streams", R"({"id": "cam2", "uri": "rtsp://b/2"})",
                           "application/json");
  EXPECT_EQ(res->status, 401);
  EXPECT_EQ(client().Delete("/api/v1/streams/cam1")->status, 401);
  EXPECT_EQ(client().Get("/api/v1/streams")->status, 401);
  const httplib::Headers auth = {{"Authorization", "Bearer s3cret"}};
  EXPECT_EQ(client().Delete("/api/v1/streams/cam1", auth)->status, 204);

  res = client().Get("/");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(res->body, "<!doctype html><title>dash</title>");
  EXPECT_EQ(client().Get("/?token=abc")->status, 200);
  EXPECT_EQ(client().Get("/other")->status, 401);  // only the page itself is open
}

// Without a controller POST/DELETE are not served and there is no dashboard: as before.
TEST(StreamControlAbsent, ReadOnlyWithoutAController) {
  yolo::ResultsStore store;
  yolo::HttpServerOptions o;
  o.port = 0;
  yolo::HttpServer server(o, store);
  httplib::Client c("127.0.0.1", server.port());
  auto res = c.Post("/api/v1/streams", R"({"id": "x", "uri": "rtsp://a/b"})", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 405);
  EXPECT_EQ(res->get_header_value("Allow"), "GET, HEAD");
  EXPECT_EQ(c.Delete("/api/v1/streams/x")->status, 404);
  EXPECT_EQ(c.Get("/")->status, 404);
}

// A request that declares no body (no Content-Length, not chunked: `curl -X DELETE`, `curl -X
// POST` without -d) has none (RFC 9112), and is answered at once: the server's read timeout is
// 30 s here and the client gives up after 10, where it used to be answered only once the server
// gave up waiting for a body. A declared body is still read whole, also where the route does not
// use it, so the next request on the same connection is understood.
TEST_F(StreamControlTest, RequestsWithoutABodyAreAnsweredAtOnce) {
  using yolo::testing::raw_exchange;
  start("", "", 30s);
  const int port = server_->port();
  std::string r = raw_exchange(port, "DELETE /api/v1/streams/cam1 HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 204", 0), 0u) << r;
  r = raw_exchange(port, "POST /api/v1/streams HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 400", 0), 0u) << r;
  EXPECT_NE(r.find("not a JSON object"), std::string::npos) << r;
  r = raw_exchange(port, "POST /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 405", 0), 0u) << r;
  r = raw_exchange(port, "PATCH /nowhere HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 404", 0), 0u) << r;

  const std::vector<std::string> replies = yolo::testing::raw_exchanges(
      port, {"DELETE /api/v1/streams/nope HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
             "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n"});
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0].rfind("HTTP/1.1 404", 0), 0u) << replies[0];
  EXPECT_EQ(replies[1].rfind("HTTP/1.1 200", 0), 0u) << replies[1];

  // A chunked body is a declared one.
  r = raw_exchange(port,
                   "POST /api/v1/streams HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                   "Content-Type: application/json\r\n\r\n"
                   "20\r\n{\"id\":\"cam9\",\"uri\":\"rtsp://z/9\"}\r\n0\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.1 201", 0), 0u) << r;
}
