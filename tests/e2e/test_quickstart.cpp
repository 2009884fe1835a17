// The README's main command at miniature size: tools/quickstart.sh from synthetic data through
// training, validation, prediction and export to a gst-launch-1.0 pipeline with the `yolo`
// element whose HTTP endpoint is polled. Same script, same steps; only the sizes shrink (48
// images of 128 px, 2 epochs, 60 video frames) and install/build are skipped (ctest runs in a
// built tree). And the first impression beyond it: a quiet default output, and an HTTP endpoint
// that answers while the model loads.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "free_port.h"
#include "run_command.h"
#include "slow_model.h"
#include "trainer_process.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

// Ends a child process when the test ends, however it ends.
class ChildGuard {
 public:
  explicit ChildGuard(pid_t pid) : pid_(pid) {}
  ~ChildGuard() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  ChildGuard(const ChildGuard&) = delete;
  ChildGuard& operator=(const ChildGuard&) = delete;

 private:
  pid_t pid_;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

}  // namespace

TEST(Quickstart, MiniatureRunFromSyntheticDataToDetectionsOverHttp) {
  const fs::path run = fs::path(YOLO_BINARY_DIR) / "test-quickstart";
  fs::remove_all(run);
  const fs::path build = fs::path(YOLO_BINARY_DIR);
  const std::string cmd =
      "cd " + std::string(YOLO_SOURCE_DIR) + " && SKIP_SETUP=1 BUILD_DIR=" + build.string() +
      " RUN_DIR=" + run.string() +
      " IMAGES=48 IMGSZ=128 EPOCHS=2 FRAMES=60 PORT=" + std::to_string(yolo::testing::free_port()) +
      " tools/quickstart.sh";
  const auto r = yolo::testing::run_command(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.output.substr(r.output.size() > 6000 ? r.output.size() - 6000 : 0);

  for (const char* step : {"[3/9]", "[4/9]", "[5/9]", "[6/9]", "[7/9]", "[8/9]", "[9/9]"})
    EXPECT_NE(r.output.find(step), std::string::npos) << "step " << step << " missing";
  EXPECT_EQ(r.output.find("[1/9]"), std::string::npos) << "SKIP_SETUP must skip the install";
  // As quiet as Ultralytics' console: no DEBUG lines unless YOLO_LOG_LEVEL asks for them.
  EXPECT_EQ(r.output.find("DEBUG"), std::string::npos) << r.output;
  // It ends with what to do next, and the monitor configuration it hands over is valid.
  EXPECT_NE(r.output.find("Next:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("yolo-monitor --config " + (run / "monitor.yaml").string()),
            std::string::npos)
      << r.output;
  // Detections polled over HTTP while the pipeline played.
  EXPECT_NE(r.output.find("GET /api/v1/streams/synthetic/detections: frame"), std::string::npos)
      << r.output;
  for (const fs::path& p :
       {run / "data" / "data.yaml", run / "data" / "video" / "synthetic.mp4",
        run / "train" / "results.csv", run / "train" / "results.png",
        run / "train" / "weights" / "best.pt", run / "train" / "weights" / "best.torchscript",
        run / "pipeline" / "annotated.mp4", run / "pipeline" / "snapshot.jpg",
        run / "monitor.yaml"}) {
    EXPECT_TRUE(fs::exists(p)) << p;
    if (fs::exists(p)) {
      EXPECT_GT(fs::file_size(p), 100u) << p;
    }
  }
  EXPECT_TRUE(fs::exists(run / "val")) << "validation run folder";
  EXPECT_TRUE(fs::exists(run / "predict")) << "prediction run folder";
}

// The element's endpoint answers from the moment its port is bound, while a slow model loads:
// /health says "loading model" (not silence), the stream's detections say why they are empty
// (503 with the state and Retry-After), and "ready" comes once inference runs.
TEST(Quickstart, HealthAnswersWhileTheModelLoads) {
  const fs::path dir = fs::path(YOLO_BINARY_DIR) / "test-quickstart-health";
  fs::remove_all(dir);
  std::string export_log;
  const fs::path model = yolo::testing::export_slow_model(
      (fs::path(YOLO_BINARY_DIR) / "bin" / "yolo-trainer").string(), dir, &export_log);
  ASSERT_FALSE(model.empty()) << export_log;

  const int port = yolo::testing::free_port();
  const std::string pipeline =
      "GST_PLUGIN_PATH=" + (fs::path(YOLO_BINARY_DIR) / "gst-plugins").string() +
      " exec gst-launch-1.0 videotestsrc is-live=true ! "
      "video/x-raw,width=160,height=120,framerate=10/1 ! yolo model=" +
      model.string() + " stream-id=slow http-port=" + std::to_string(port) + " ! fakesink";
  const fs::path log = dir / "gst-launch.log";
  const pid_t pid = yolo::testing::start_process("/bin/sh", dir, {"-c", pipeline}, log.string());
  ASSERT_GT(pid, 0);
  ChildGuard child(pid);

  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(0, 200000);
  client.set_read_timeout(5, 0);
  std::vector<std::string> states;  // each state /health reported, in the order seen
  // The detections endpoint's answer during the load (status 0: not asked).
  int loading_status = 0;
  std::string loading_retry_after, loading_body;
  const auto deadline = std::chrono::steady_clock::now() + 180s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto r = client.Get("/api/v1/health"); r && r->status == 200) {
      const json body = json::parse(r->body);
      const std::string state = body.value("state", "");
      if (states.empty() || states.back() != state) states.push_back(state);
      if (state == "loading model" && loading_status == 0) {
        if (auto d = client.Get("/api/v1/streams/slow/detections")) {
          loading_status = d->status;
          loading_retry_after = d->get_header_value("Retry-After");
          loading_body = d->body;
        }
        EXPECT_EQ(body["streams"]["slow"]["state"], "loading model") << body;
        EXPECT_FALSE(body["ready"].get<bool>()) << body;
      }
      if (state == "ready") {
        EXPECT_TRUE(body["ready"].get<bool>()) << body;
        break;
      }
    }
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_FALSE(states.empty()) << "/health never answered\n" << read_file(log);
  EXPECT_EQ(states.back(), "ready") << read_file(log);
  // Seen while the model loaded, and only forwards.
  const std::vector<std::string> order = {"starting", "loading model", "waiting for frames",
                                          "ready"};
  EXPECT_NE(std::find(states.begin(), states.end(), "loading model"), states.end())
      << "the first answer came after the model had loaded: " << states.front();
  long previous = -1;
  for (const auto& s : states) {
    const long at = std::find(order.begin(), order.end(), s) - order.begin();
    EXPECT_LT(at, static_cast<long>(order.size())) << "unknown state " << s;
    EXPECT_GT(at, previous) << "state " << s << " after a later one";
    previous = at;
  }
  EXPECT_EQ(loading_status, 503) << loading_body;
  EXPECT_EQ(loading_retry_after, "1");
  json why = json::parse(loading_body, nullptr, false);
  if (!why.is_object()) why = json::object();
  EXPECT_EQ(why.value("state", ""), "loading model") << loading_body;
  EXPECT_NE(why.value("error", "").find("loading model"), std::string::npos) << loading_body;
  // Ready: the detections are there.
  auto ready = client.Get("/api/v1/streams/slow/detections");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200) << ready->body;
}
