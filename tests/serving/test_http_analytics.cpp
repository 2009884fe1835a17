// The analytics endpoints of the HTTP API through a real client: counts, and events with the same
// since/wait protocol as detections (long-poll wakes on a publish, since ahead is a 400, wait
// needs since), and the 404s that say what to configure.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "yolo/serving/events_store.h"
#include "yolo/serving/http_server.h"
#include "yolo/serving/results_store.h"

using namespace std::chrono_literals;
using json = nlohmann::json;

namespace {

struct Served {
  yolo::ResultsStore results;
  yolo::EventsStore events{3};  // 3 kept per stream: older ones count as missed
  std::unique_ptr<yolo::HttpServer> server;

  explicit Served(bool with_events) {
    yolo::HttpServerOptions o;
    o.port = 0;
    server = std::make_unique<yolo::HttpServer>(o, results, nullptr, nullptr, nullptr,
                                                with_events ? &events : nullptr);
  }
  json get(const std::string& path, int expected_status) {
    httplib::Client c("127.0.0.1", server->port());
    c.set_read_timeout(30s);
    auto r = c.Get(path.c_str());
    EXPECT_TRUE(r) << path;
    if (!r) return json();
    EXPECT_EQ(r->status, expected_status) << path << ": " << r->body;
    return json::parse(r->body);
  }
};

// A stream the service knows: it has a result.
void add_stream(yolo::ResultsStore& results, const std::string& id) {
  yolo::FrameResult r;
  r.stream_id = id;
  r.width = 320;
  r.height = 240;
  results.publish(r);
}

json crossing(int64_t track) {
  return {{"type", "line_crossed"}, {"line", "door"}, {"track_id", track}, {"direction", "in"}};
}

}  // namespace

TEST(HttpAnalytics, CountsAndEvents) {
  Served s(true);
  // A stream the service does not know is an unknown stream here too, as on /detections (#57).
  for (const char* endpoint : {"counts", "events"}) {
    json err = s.get(std::string("/api/v1/streams/cam1/") + endpoint, 404);
    EXPECT_EQ(err["error"], "unknown stream 'cam1'") << err;
  }
  add_stream(s.results, "cam1");
  json err = s.get("/api/v1/streams/cam1/counts", 404);
  EXPECT_NE(err["error"].get<std::string>().find("has no lines or zones"), std::string::npos)
      << err;
  EXPECT_NE(err["hint"].get<std::string>().find("lines: or zones:"), std::string::npos) << err;

  s.events.set_counts("cam1", {{"lines", {{{"name", "door"}, {"in", 0}, {"out", 0}}}}});
  json counts = s.get("/api/v1/streams/cam1/counts", 200);
  EXPECT_EQ(counts["stream_id"], "cam1");
  EXPECT_EQ(counts["lines"][0]["name"], "door");
  EXPECT_EQ(counts["latest_event_seq"], 0);

  // No events yet: an empty list and where to continue from.
  json none = s.get("/api/v1/streams/cam1/events", 200);
  EXPECT_TRUE(none["events"].empty());
  EXPECT_EQ(none["next_since"], 0);

  for (int i = 1; i <= 2; ++i) s.events.publish("cam1", crossing(i));
  json two = s.get("/api/v1/streams/cam1/events?since=0", 200);
  ASSERT_EQ(two["events"].size(), 2u);
  EXPECT_EQ(two["events"][0]["seq"], 1);
  EXPECT_EQ(two["events"][1]["track_id"], 2);
  EXPECT_EQ(two["next_since"], 2);
  EXPECT_EQ(two["missed"], 0);
  // Without since: only where to continue from, not old events.
  EXPECT_TRUE(s.get("/api/v1/streams/cam1/events", 200)["events"].empty());

  // A long-poll wakes when an event is published.
  std::thread later([&] {
    std::this_thread::sleep_for(200ms);
    s.events.publish("cam1", crossing(3));
  });
  const auto t0 = std::chrono::steady_clock::now();
  json woke = s.get("/api/v1/streams/cam1/events?since=2&wait=10000", 200);
  later.join();
  ASSERT_EQ(woke["events"].size(), 1u);
  EXPECT_EQ(woke["events"][0]["track_id"], 3);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 9s) << "the long-poll did not wake";

  // More than the kept history: the oldest are reported missed.
  for (int i = 4; i <= 7; ++i) s.events.publish("cam1", crossing(i));
  json missed = s.get("/api/v1/streams/cam1/events?since=3", 200);
  EXPECT_EQ(missed["events"].size(), 3u);
  EXPECT_EQ(missed["missed"], 1);

  EXPECT_EQ(s.get("/api/v1/streams/cam1/events?since=99", 400)["latest_seq"], 7);
  s.get("/api/v1/streams/cam1/events?wait=100", 400);
  s.get("/api/v1/streams/cam1/events?sinse=1", 400);
  s.get("/api/v1/streams/cam1/counts?x=1", 400);
}

TEST(HttpAnalytics, WithoutAnalyticsTheEndpointsSaySo) {
  Served s(false);
  add_stream(s.results, "cam1");
  json err = s.get("/api/v1/streams/cam1/events", 404);
  EXPECT_NE(err["error"].get<std::string>().find("no analytics"), std::string::npos) << err;
  s.get("/api/v1/streams/cam1/counts", 404);
}
