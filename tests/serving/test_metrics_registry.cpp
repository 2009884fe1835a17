// The metrics registry and the runtime's metrics: exact Prometheus text, escaping, misuse
// errors, collectors and their handles, bounded series, concurrent updates, fps, and the
// DynamicBatcher's counters mirrored at scrape time.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <thread>

#include "yolo/runtime/batcher.h"
#include "yolo/serving/metrics_registry.h"
#include "yolo/serving/runtime_metrics.h"

using namespace std::chrono_literals;
using yolo::MetricType;

namespace {

bool contains(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

}  // namespace

// Counters, gauges and histograms render in the text exposition format, families by name.
TEST(MetricsRegistry, RendersExposition) {
  yolo::MetricsRegistry r;
  r.declare("b_total", MetricType::kCounter, "Things.", {"stream"});
  r.declare("a_gauge", MetricType::kGauge, "A level.");
  r.declare("c_seconds", MetricType::kHistogram, "Durations.", {"model"}, {0.1, 1});
  r.add("b_total", {"cam1"});
  r.add("b_total", {"cam1"}, 2);
  r.set("a_gauge", {}, 0.5);
  r.observe("c_seconds", {"m"}, 0.05);
  r.observe("c_seconds", {"m"}, 0.1);  // upper bounds are inclusive
  r.observe("c_seconds", {"m"}, 7);
  EXPECT_EQ(r.render(),
            "# HELP a_gauge A level.\n"
            "# TYPE a_gauge gauge\n"
            "a_gauge 0.5\n"
            "# HELP b_total Things.\n"
            "# TYPE b_total counter\n"
            "b_total{stream=\"cam1\"} 3\n"
            "# HELP c_seconds Durations.\n"
            "# TYPE c_seconds histogram\n"
            "c_seconds_bucket{model=\"m\",le=\"0.1\"} 2\n"
            "c_seconds_bucket{model=\"m\",le=\"1\"} 2\n"
            "c_seconds_bucket{model=\"m\",le=\"+Inf\"} 3\n"
            "c_seconds_sum{model=\"m\"} 7.15\n"
            "c_seconds_count{model=\"m\"} 3\n");
}

// Label values escape backslash, quote and newline; HELP escapes backslash and newline.
TEST(MetricsRegistry, Escaping) {
  yolo::MetricsRegistry r;
  r.declare("x", MetricType::kGauge, "line1\nback\\slash \"q\"", {"l"});
  r.set("x", {"a\"b\\c\nd"}, 1);
  const std::string text = r.render();
  EXPECT_TRUE(contains(text, R"(# HELP x line1\nback\\slash "q")")) << text;
  EXPECT_TRUE(contains(text, R"(x{l="a\"b\\c\nd"} 1)")) << text;
}

// Misuse is a programming error and throws; an identical re-declaration is fine.
TEST(MetricsRegistry, MisuseThrows) {
  yolo::MetricsRegistry r;
  r.declare("c_total", MetricType::kCounter, "c", {"stream"});
  EXPECT_NO_THROW(r.declare("c_total", MetricType::kCounter, "c", {"stream"}));
  EXPECT_THROW(r.declare("c_total", MetricType::kGauge, "c", {"stream"}), std::invalid_argument);
  EXPECT_THROW(r.declare("c_total", MetricType::kCounter, "c", {"model"}), std::invalid_argument);
  EXPECT_THROW(r.declare("9bad", MetricType::kGauge, "x"), std::invalid_argument);
  EXPECT_THROW(r.declare("ok", MetricType::kGauge, "x", {"le"}), std::invalid_argument);
  EXPECT_THROW(r.declare("ok", MetricType::kGauge, "x", {"a:b"}), std::invalid_argument);
  EXPECT_THROW(r.declare("h", MetricType::kHistogram, "x"), std::invalid_argument);
  EXPECT_THROW(r.declare("h", MetricType::kHistogram, "x", {}, {1, 1}), std::invalid_argument);
  EXPECT_THROW(r.declare("g", MetricType::kGauge, "x", {}, {1}), std::invalid_argument);
  EXPECT_THROW(r.add("missing", {}), std::invalid_argument);
  EXPECT_THROW(r.add("c_total", {}), std::invalid_argument);  // one label value expected
  EXPECT_THROW(r.add("c_total", {"cam"}, -1), std::invalid_argument);
  EXPECT_THROW(r.observe("c_total", {"cam"}, 1), std::invalid_argument);
  r.declare("h", MetricType::kHistogram, "x", {}, {1});
  EXPECT_THROW(r.set("h", {}, 1), std::invalid_argument);
}

// Collectors run at each render; destroying the handle unregisters them; a throwing collector
// does not break the render.
TEST(MetricsRegistry, Collectors) {
  yolo::MetricsRegistry r;
  r.declare("pulled", MetricType::kGauge, "From a collector.");
  int calls = 0;
  {
    auto handle =
        r.add_collector([&](yolo::MetricsRegistry& reg) { reg.set("pulled", {}, ++calls); });
    auto broken = r.add_collector([](yolo::MetricsRegistry&) { throw std::runtime_error("x"); });
    EXPECT_TRUE(contains(r.render(), "pulled 1"));
    EXPECT_TRUE(contains(r.render(), "pulled 2"));
    yolo::MetricsRegistry::CollectorHandle moved = std::move(handle);
    EXPECT_TRUE(contains(r.render(), "pulled 3"));
  }
  r.render();
  EXPECT_EQ(calls, 3);
}

// New label values beyond the limit are dropped; remove_series forgets a stream everywhere.
TEST(MetricsRegistry, BoundedSeriesAndRemoval) {
  yolo::MetricsRegistry r(2);
  r.declare("f_total", MetricType::kCounter, "f", {"stream"});
  r.declare("g", MetricType::kGauge, "g", {"model", "stream"});
  r.add("f_total", {"a"});
  r.add("f_total", {"b"});
  r.add("f_total", {"c"});  // dropped
  r.add("f_total", {"a"});  // existing series still count
  r.set("g", {"m", "a"}, 1);
  std::string text = r.render();
  EXPECT_TRUE(contains(text, R"(f_total{stream="a"} 2)"));
  EXPECT_EQ(text.find(R"(stream="c")"), std::string::npos);
  r.remove_series("stream", "a");
  text = r.render();
  EXPECT_EQ(text.find(R"(stream="a")"), std::string::npos) << text;
  EXPECT_TRUE(contains(text, R"(f_total{stream="b"} 1)"));
}

// Updates from many threads while rendering: nothing lost, nothing torn.
TEST(MetricsRegistry, ConcurrentUpdates) {
  yolo::MetricsRegistry r;
  r.declare("n_total", MetricType::kCounter, "n", {"t"});
  r.declare("h", MetricType::kHistogram, "h", {}, {0.5});
  constexpr int kThreads = 4, kEach = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        r.add("n_total", {std::to_string(t % 2)});
        r.observe("h", {}, 1);
      }
    });
  }
  threads.emplace_back([&] {
    for (int i = 0; i < 50; ++i) r.render();
  });
  for (auto& t : threads) t.join();
  const std::string text = r.render();
  EXPECT_TRUE(contains(text, R"(n_total{t="0"} 4000)")) << text;
  EXPECT_TRUE(contains(text, R"(n_total{t="1"} 4000)")) << text;
  EXPECT_TRUE(contains(text, "h_count 8000")) << text;
}

// Stream and model metrics from producer calls; fps after a window; remove_stream.
TEST(RuntimeMetrics, StreamsModelsAndFps) {
  yolo::MetricsRegistry r;
  yolo::RuntimeMetricsOptions options;
  options.fps_window = 100ms;
  yolo::RuntimeMetrics m(r, options);
  for (int i = 0; i < 10; ++i) {
    m.frame_done("cam1", 30ms);
    std::this_thread::sleep_for(15ms);
  }
  m.frames_dropped("cam1", 4);
  m.batch_done("yolo26n", 2, 8, 12ms);
  std::string text = r.render();
  EXPECT_TRUE(contains(text, R"(yolo_stream_frames_total{stream="cam1"} 10)")) << text;
  EXPECT_TRUE(contains(text, R"(yolo_stream_dropped_frames_total{stream="cam1"} 4)")) << text;
  EXPECT_TRUE(contains(text, R"(yolo_stream_latency_seconds_bucket{stream="cam1",le="0.05"} 10)"))
      << text;
  EXPECT_TRUE(contains(text, R"(yolo_model_frames_total{model="yolo26n"} 2)")) << text;
  EXPECT_TRUE(contains(text, R"(yolo_model_batch_fill_ratio_bucket{model="yolo26n",le="0.25"} 1)"))
      << text;
  // ~66 fps (a frame every 15 ms); generous bounds for a loaded machine.
  const auto at = text.find("yolo_stream_fps{stream=\"cam1\"} ");
  ASSERT_NE(at, std::string::npos) << text;
  const double fps = std::stod(text.substr(at + 31));
  EXPECT_GT(fps, 1.0);
  EXPECT_LT(fps, 1000.0);
  m.remove_stream("cam1");
  EXPECT_EQ(r.render().find("cam1"), std::string::npos);
}

// A DynamicBatcher's stats and its producers' are mirrored at every scrape until the handle goes.
TEST(RuntimeMetrics, WatchBatcher) {
  yolo::MetricsRegistry r;
  yolo::RuntimeMetrics m(r);
  yolo::BatcherOptions bo;
  bo.max_batch = 2;
  yolo::DynamicBatcher batcher([](const torch::Tensor& b) { return b * 2; }, bo);
  const int producer = batcher.add_producer("cam1", yolo::QueueFullPolicy::kBlock);
  EXPECT_THROW(m.watch_batcher("m", batcher, {producer + 5}), std::invalid_argument);
  auto handle = m.watch_batcher("m", batcher, {producer});
  for (int i = 0; i < 3; ++i) batcher.submit(producer, torch::ones({2})).get();
  std::string text = r.render();
  EXPECT_TRUE(contains(text, R"(yolo_batcher_inferred_frames_total{model="m"} 3)")) << text;
  EXPECT_TRUE(contains(text, R"(yolo_batcher_frames_in_total{model="m"} 3)")) << text;
  EXPECT_TRUE(
      contains(text, R"(yolo_batcher_producer_inferred_frames_total{model="m",producer="cam1"} 3)"))
      << text;
  EXPECT_TRUE(contains(text, R"(yolo_batcher_producer_queued_frames{model="m",producer="cam1"} 0)"))
      << text;
  handle.reset();
  batcher.submit(producer, torch::ones({2})).get();
  text = r.render();  // values stay as last mirrored
  EXPECT_TRUE(contains(text, R"(yolo_batcher_inferred_frames_total{model="m"} 3)")) << text;
}
