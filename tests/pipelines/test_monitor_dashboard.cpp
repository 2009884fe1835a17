// The dashboard page in headless Chromium: served by the real HTTP server with a fake stream
// controller and a results store holding two streams (with snapshots), it must render one tile
// per stream with its state and detections. The screenshot is kept in the build folder
// (dashboard.png) as a test artifact. Skipped with a message when Chromium is not installed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <regex>
#include <string>

#include "run_command.h"
#include "yolo/monitor/dashboard.h"
#include "yolo/serving/events_store.h"
#include "yolo/serving/http_server.h"
#include "yolo/serving/results_store.h"
#include "yolo/serving/snapshot_store.h"
#include "yolo/serving/stream_control.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// Two streams: one running, one reconnecting with an error.
class TwoStreams : public yolo::StreamControl {
 public:
  json list() override {
    return json::array({{{"id", "front-door"},
                         {"state", "running"},
                         {"fps", 14.8},
                         {"last_frame_age_s", 0.05},
                         {"retries", 0}},
                        {{"id", "yard"},
                         {"state", "reconnecting"},
                         {"fps", 0},
                         {"last_frame_age_s", 12.5},
                         {"retries", 3},
                         {"last_error", "rtspsrc0: Could not open resource"}}});
  }
  yolo::StreamControlResult add(const json&) override {
    return yolo::StreamControlResult::failure(yolo::StreamControlResult::Status::kInvalid, "no",
                                              "read-only in this test");
  }
  yolo::StreamControlResult remove(const std::string&) override {
    return yolo::StreamControlResult::failure(yolo::StreamControlResult::Status::kNotFound, "", "");
  }
};

std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const auto r = yolo::testing::run_command(std::string("command -v ") + name);
    if (r.exit_code == 0) return name;
  }
  return "";
}

void publish(yolo::ResultsStore& store, yolo::SnapshotStore& snapshots, const std::string& id,
             const cv::Scalar& colour, std::vector<yolo::Detection> detections) {
  yolo::FrameResult r;
  r.stream_id = id;
  r.frame = 100;
  r.width = 640;
  r.height = 360;
  r.detections = std::move(detections);
  cv::Mat frame(360, 640, CV_8UC3, colour);
  cv::circle(frame, {320, 180}, 80, {255, 255, 255}, -1);
  snapshots.put(r, frame);
  store.publish(r);
}

}  // namespace

TEST(Dashboard, IsSelfContained) {
  const std::string& html = yolo::monitor::dashboard_html();
  ASSERT_GT(html.size(), 1000u);
  EXPECT_EQ(html.rfind("<!doctype html>", 0), 0u);
  // No external assets: nothing is loaded from another origin.
  EXPECT_FALSE(std::regex_search(html, std::regex(R"((src|href)\s*=\s*["']?(https?:)?//)")));
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_NE(html.find("Authorization"), std::string::npos);  // the token travels as a header
}

// Tiles for both streams appear in the DOM after the page polled the API with its token.
TEST(Dashboard, RendersTilesInHeadlessChromium) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "Chromium is not installed (Debian package 'chromium', see "
                    "tools/install-deps.sh); the dashboard is not rendered";
  }
  yolo::ResultsStore store;
  yolo::SnapshotStore snapshots;
  TwoStreams control;
  publish(store, snapshots, "front-door", {40, 90, 40},
          {{100, 60, 300, 330, 0.91f, 0, "person"}, {350, 200, 600, 340, 0.66f, 2, "car"}});
  publish(store, snapshots, "yard", {90, 40, 40}, {});
  yolo::HttpServerOptions o;
  o.port = 0;
  o.bearer_token = "dash-token";
  o.dashboard_html = yolo::monitor::dashboard_html();
  // front-door counts: a line and a zone in its 640x360 frame's pixels.
  yolo::EventsStore events;
  events.set_counts("front-door", nlohmann::json::parse(R"({"width": 640, "height": 360,
        "lines": [{"name": "entrance", "in": 3, "out": 1, "classes": {}}],
        "zones": [{"name": "porch", "occupancy": 2, "entries": 5, "exits": 3, "classes": {}}],
        "geometry": {"lines": [{"name": "entrance", "points": [[320, 0], [320, 360]]}],
                     "zones": [{"name": "porch", "points": [[20, 200], [200, 200], [200, 340]]}]}})"));
  yolo::HttpServer server(o, store, &snapshots, nullptr, &control, &events);
  const std::string url =
      "http://127.0.0.1:" + std::to_string(server.port()) + "/?token=dash-token";

  const fs::path artifact = fs::path(YOLO_BINARY_DIR) / "dashboard.png";
  fs::remove(artifact);
  // A separate profile folder: a user's running Chromium must not take the request over.
  const fs::path profile =
      fs::temp_directory_path() / ("yolo_dash_profile_" + std::to_string(::getpid()));
  const std::string common = chromium + " --headless --disable-gpu --no-sandbox --no-first-run " +
                             "--user-data-dir='" + profile.string() +
                             "' --window-size=1280,800 --virtual-time-budget=8000 ";
  const auto dom = yolo::testing::run_command(common + "--dump-dom '" + url + "' 2>/dev/null");
  const auto shot =
      yolo::testing::run_command(common + "--screenshot='" + artifact.string() + "' '" + url + "'");
  fs::remove_all(profile);
  ASSERT_EQ(dom.exit_code, 0) << dom.output;
  // One tile per stream, with the state the controller reported.
  EXPECT_TRUE(std::regex_search(
      dom.output,
      std::regex(R"(<section class="tile" data-stream-id="front-door" data-state="running">)")))
      << dom.output;
  EXPECT_TRUE(std::regex_search(dom.output,
                                std::regex(R"(data-stream-id="yard" data-state="reconnecting")")))
      << dom.output;
  // The running stream's snapshot and detections, the other's error.
  EXPECT_NE(dom.output.find("<img alt=\"front-door\" src=\"blob:"), std::string::npos)
      << dom.output;
  EXPECT_NE(dom.output.find("person 0.91"), std::string::npos) << dom.output;
  EXPECT_NE(dom.output.find("car 0.66"), std::string::npos);
  EXPECT_NE(dom.output.find("Could not open resource"), std::string::npos);
  EXPECT_NE(dom.output.find("1 of 2 streams running"), std::string::npos);
  // Its line and zone over the snapshot, with live counts.
  EXPECT_NE(dom.output.find("<polyline class=\"line\" points=\"320,0 320,360\""), std::string::npos)
      << dom.output;
  EXPECT_NE(dom.output.find("<polygon class=\"zone\""), std::string::npos);
  EXPECT_NE(dom.output.find("entrance in 3 out 1"), std::string::npos);
  EXPECT_NE(dom.output.find("porch 2 inside"), std::string::npos);
  EXPECT_EQ(shot.exit_code, 0) << shot.output;
  EXPECT_TRUE(fs::exists(artifact)) << shot.output;
  EXPECT_GT(fs::file_size(artifact), 10000u);
}
