// StreamManager as the HTTP API and SIGHUP use it: configured streams start (state file
// applied), list() reports each with its state, add/remove answer like the API expects and are
// persisted, and reconcile() touches only the streams that changed. Real pipelines against the
// in-process RTSP server, with identity standing in for the yolo element.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "rtsp_test_server.h"
#include "test_files.h"
#include "yolo/monitor/stream_manager.h"

using namespace std::chrono_literals;
using json = nlohmann::json;
using Status = yolo::StreamControlResult::Status;
using yolo::monitor::StreamConfig;
using yolo::monitor::StreamManager;
using yolo::monitor::StreamState;

namespace {

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return condition();
}

StreamConfig stream(const std::string& id, const std::string& uri) {
  return yolo::monitor::stream_from_json({{"id", id}, {"uri", uri}});
}

class StreamManagerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }

  StreamManagerTest() { server_.start(); }

  std::unique_ptr<StreamManager> manager(yolo::monitor::StreamStateFile* state = nullptr) {
    yolo::monitor::StreamManagerOptions o;
    o.supervision.stall_timeout = 1500ms;
    o.supervision.start_timeout = 5s;
    o.supervision.backoff = {100ms, 400ms, 0.2};
    o.supervision.max_retries = 1;
    o.sources.rtsp_latency = 50ms;
    return std::make_unique<StreamManager>(
        o,
        [this](const StreamConfig& s) {
          if (s.id == "needs-model") throw std::invalid_argument("stream needs-model: no model");
          return std::vector<yolo::monitor::ElementSpec>{{"identity", infer_name_, {}}};
        },
        [this](const std::string& id, GstSample*) {
          std::lock_guard<std::mutex> lock(mutex_);
          ++samples_[id];
        },
        [this](const std::string& id) {
          std::lock_guard<std::mutex> lock(mutex_);
          removed_.push_back(id);
        },
        state);
  }
  int samples(const std::string& id) {
    std::lock_guard<std::mutex> lock(mutex_);
    return samples_[id];
  }
  static std::string state_of(StreamManager& m, const std::string& id) {
    for (const auto& e : m.list()) {
      if (e["id"] == id) return e["state"];
    }
    return "";
  }

  yolo::testing::RtspTestServer server_;
  std::string infer_name_ = "infer";  // in every pipeline; changing it changes them all
  std::mutex mutex_;
  std::map<std::string, int> samples_;
  std::vector<std::string> removed_;
};

}  // namespace

// Configured streams start; list() shows id, uri, kind, state and stats; samples reach the
// handler under the right id.
TEST_F(StreamManagerTest, StartsAndLists) {
  auto m = manager();
  m->start({stream("good", server_.uri()), stream("bad", "rtsp://127.0.0.1:1/none")});
  ASSERT_TRUE(eventually([&] { return state_of(*m, "good") == "running" && samples("good") > 3; }));
  ASSERT_TRUE(eventually([&] { return state_of(*m, "bad") == "failed"; }));
  const json list = m->list();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0]["id"], "good");
  EXPECT_EQ(list[0]["kind"], "rtsp");
  EXPECT_EQ(list[0]["uri"], server_.uri());
  EXPECT_GT(list[0]["frames"].get<int>(), 0);
  // Why the camera failed names it and what to check, not only GStreamer's words.
  const std::string why = list[1]["last_error"].get<std::string>();
  EXPECT_NE(why.find("'rtsp://127.0.0.1:1/none'"), std::string::npos) << why;
  EXPECT_NE(why.find("reachable from this machine"), std::string::npos) << why;
  EXPECT_EQ(samples("bad"), 0);
  EXPECT_THROW(m->start({stream("good", server_.uri())}), std::invalid_argument);
}

// add/remove answer as the API maps them, and persist to the state file, which a new manager
// (a restart) applies.
TEST_F(StreamManagerTest, AddRemovePersisted) {
  yolo::testing::TempDir dir("stream_manager_state");
  const auto path = dir.path / "streams.json";
  {
    yolo::monitor::StreamStateFile state(path);
    auto m = manager(&state);
    m->start({stream("cam1", server_.uri())});
    auto r = m->add({{"id", "cam2"}, {"uri", server_.uri()}});
    ASSERT_EQ(r.status, Status::kOk) << r.error;
    EXPECT_EQ(r.stream["id"], "cam2");
    EXPECT_EQ(m->add({{"id", "cam2"}, {"uri", server_.uri()}}).status, Status::kConflict);
    r = m->add({{"id", "cam3"}, {"uri", "ftp://x"}, {"cof", 1}});
    EXPECT_EQ(r.status, Status::kInvalid);
    EXPECT_EQ(r.details["problems"].size(), 2u);
    EXPECT_NE(r.error.find("unsupported scheme"), std::string::npos) << r.error;
    r = m->add({{"id", "needs-model"}, {"uri", server_.uri()}});
    EXPECT_EQ(r.status, Status::kInvalid);
    EXPECT_NE(r.error.find("no model"), std::string::npos);
    ASSERT_TRUE(eventually([&] { return samples("cam2") > 3; }));

    EXPECT_EQ(m->remove("cam1").status, Status::kOk);
    EXPECT_EQ(m->remove("cam1").status, Status::kNotFound);
    EXPECT_EQ(m->ids(), std::vector<std::string>{"cam2"});
    EXPECT_EQ(removed_, std::vector<std::string>{"cam1"});
  }
  yolo::monitor::StreamStateFile state(path);
  auto restarted = manager(&state);
  restarted->start({stream("cam1", server_.uri())});  // monitor.yaml unchanged
  EXPECT_EQ(restarted->ids(), std::vector<std::string>{"cam2"});
}

// reconcile(): new ids start, missing ones stop, changed ones rebuild, unchanged keep running.
TEST_F(StreamManagerTest, ReconcileTouchesOnlyChanges) {
  auto m = manager();
  m->start({stream("keep", server_.uri()), stream("change", server_.uri()),
            stream("drop", server_.uri())});
  ASSERT_TRUE(eventually([&] { return samples("keep") > 3 && samples("change") > 3; }));
  const auto keep_before = m->stats("keep")->frames;

  auto changed = stream("change", server_.uri());
  changed.conf = 0.6;
  const auto summary =
      m->reconcile({stream("keep", server_.uri()), changed, stream("new", server_.uri())});
  EXPECT_EQ(summary.added, std::vector<std::string>{"new"});
  EXPECT_EQ(summary.removed, std::vector<std::string>{"drop"});
  EXPECT_EQ(summary.restarted, std::vector<std::string>{"change"});
  EXPECT_EQ(m->ids(), (std::vector<std::string>{"keep", "change", "new"}));
  EXPECT_FALSE(m->stats("drop"));
  // The unchanged stream kept its supervisor: its frame count continues instead of restarting.
  EXPECT_GE(m->stats("keep")->frames, keep_before);
  EXPECT_EQ(m->stats("keep")->retries, 0u);
  ASSERT_TRUE(eventually([&] { return state_of(*m, "new") == "running"; }));
  ASSERT_TRUE(eventually([&] { return state_of(*m, "change") == "running"; }));
  EXPECT_EQ(removed_, std::vector<std::string>{"drop"});  // rebuilt streams keep their results
  // Same configurations, but the inference elements now differ (a changed service default):
  // every stream is rebuilt.
  infer_name_ = "infer2";
  const auto again =
      m->reconcile({stream("keep", server_.uri()), changed, stream("new", server_.uri())});
  EXPECT_EQ(again.restarted, (std::vector<std::string>{"keep", "change", "new"}));
  EXPECT_TRUE(again.added.empty());
  m->stop_all();
  EXPECT_EQ(state_of(*m, "keep"), "stopped");
}
