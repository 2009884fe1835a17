// Detections JSON and the results store: sequence numbers, bounded history, long-poll wake-ups
// and time-outs, shutdown, stream limits, concurrent producers.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "yolo/serving/results_store.h"

using namespace std::chrono_literals;

namespace {

yolo::FrameResult result(const std::string& stream, int64_t frame) {
  yolo::FrameResult r;
  r.stream_id = stream;
  r.frame = frame;
  r.width = 640;
  r.height = 480;
  return r;
}

}  // namespace

TEST(Detections, RowsAndJson) {
  const float rows[] = {10.5f, 20, 110, 220.25f, 0.91f, 0, 1, 2, 3, 4, 0.5f, 7};
  auto d = yolo::detections_from_rows(rows, 2, {{0, "person"}});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].class_name, "person");
  EXPECT_EQ(d[1].class_name, "class 7");
  yolo::FrameResult r = result("cam1", 345);
  r.seq = 12;
  r.pts_ns = 11500000000;
  r.wall_time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1764481465123));
  r.detections = d;
  auto j = yolo::to_json(r);
  EXPECT_EQ(j["stream_id"], "cam1");
  EXPECT_EQ(j["seq"], 12);
  EXPECT_EQ(j["frame"], 345);
  EXPECT_EQ(j["pts_ns"], 11500000000);
  EXPECT_EQ(j["timestamp"], "2025-11-30T05:44:25.123Z");
  EXPECT_EQ(j["width"], 640);
  ASSERT_EQ(j["detections"].size(), 2u);
  EXPECT_FLOAT_EQ(j["detections"][0]["x2"].get<float>(), 110.f);
  EXPECT_EQ(j["detections"][0]["class_id"], 0);
  EXPECT_EQ(j["detections"][0]["class_name"], "person");
  EXPECT_FLOAT_EQ(j["detections"][0]["confidence"].get<float>(), 0.91f);
}

TEST(ResultsStore, SequenceLatestAndBoundedHistory) {
  yolo::ResultsStore store(3, 8);
  EXPECT_FALSE(store.latest("cam1"));
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(store.publish(result("cam1", i)), static_cast<uint64_t>(i + 1));
  EXPECT_EQ(store.publish(result("cam2", 0)), 1u);  // per-stream numbering
  EXPECT_EQ(store.latest("cam1")->frame, 4);
  EXPECT_NE(store.latest("cam1")->wall_time, std::chrono::system_clock::time_point{});
  auto all = store.wait_since("cam1", 0, 0ms);
  ASSERT_EQ(all.size(), 3u);  // history bound
  EXPECT_EQ(all.front().seq, 3u);
  EXPECT_EQ(store.wait_since("cam1", 4, 0ms).size(), 1u);
  EXPECT_EQ(store.streams(), (std::vector<std::string>{"cam1", "cam2"}));
  store.remove_stream("cam2");
  EXPECT_FALSE(store.has_stream("cam2"));
}

TEST(ResultsStore, LongPollWakesOnPublishAndTimesOut) {
  yolo::ResultsStore store;
  store.publish(result("cam", 0));
  // Nothing newer than seq 1: times out empty (generous bound, no tight timing assert).
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(store.wait_since("cam", 1, 50ms).empty());
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 45ms);
  // A publish from another thread wakes the reader long before its 10 s limit.
  std::thread producer([&] {
    std::this_thread::sleep_for(50ms);
    store.publish(result("cam", 1));
  });
  t0 = std::chrono::steady_clock::now();
  auto got = store.wait_since("cam", 1, 10s);
  producer.join();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].seq, 2u);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  // Waiting on a stream that does not exist yet also wakes when it appears.
  std::thread later([&] {
    std::this_thread::sleep_for(30ms);
    store.publish(result("new", 0));
  });
  EXPECT_EQ(store.wait_since("new", 0, 10s).size(), 1u);
  later.join();
}

TEST(ResultsStore, ShutdownWakesReadersAndLimitsHold) {
  yolo::ResultsStore store(10, 2);
  std::thread reader([&] { EXPECT_TRUE(store.wait_since("cam", 0, 30s).empty()); });
  std::this_thread::sleep_for(30ms);
  auto t0 = std::chrono::steady_clock::now();
  store.shutdown();
  reader.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  store.publish(result("a", 0));
  store.publish(result("b", 0));
  EXPECT_THROW(store.publish(result("c", 0)), std::length_error);
}

TEST(ResultsStore, ConcurrentProducersAndReaders) {
  yolo::ResultsStore store(1000, 16);
  constexpr int kProducers = 4, kFrames = 200;
  std::atomic<int> seen{0};
  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; ++p) {
    threads.emplace_back([&, p] {
      for (int f = 0; f < kFrames; ++f) store.publish(result("cam" + std::to_string(p), f));
    });
  }
  threads.emplace_back([&] {
    uint64_t since = 0;
    while (since < kFrames) {
      auto got = store.wait_since("cam0", since, 2s);
      if (got.empty()) break;
      for (const auto& r : got) EXPECT_EQ(r.seq, ++since);  // no gaps: history is large enough
      seen += static_cast<int>(got.size());
    }
  });
  for (auto& t : threads) t.join();
  EXPECT_EQ(seen, kFrames);
  for (int p = 0; p < kProducers; ++p) {
    EXPECT_EQ(store.latest("cam" + std::to_string(p))->seq, static_cast<uint64_t>(kFrames));
  }
}
