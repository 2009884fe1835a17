// What publishing to MQTT costs and holds (issue 38): messages per second through a real local
// mosquitto (QoS 1 and 0), how long publish() takes for the caller (a streaming thread) with the
// broker up and with it away, and the buffer's memory bound while the broker is away.
//
//   build/bin/bench_mqtt [--messages 50000] [--payload-bytes 600] [--rounds 3]
//
// Starts its own mosquitto on a free loopback port (Debian's `mosquitto`). Payloads are the size
// of a detections message with a few boxes. Printed as tables, medians over the rounds.
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "mosquitto_test_broker.h"
#include "yolo/analytics/analytics_json.h"
#include "yolo/analytics/stream_analytics.h"
#include "yolo/core/log.h"
#include "yolo/mqtt/mqtt_publisher.h"
#include "yolo/runtime/detection.h"
#include "yolo/serving/mqtt_output.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
  int messages = 50000, payload_bytes = 600, rounds = 3;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

// Resident memory of this process, MiB (/proc/self/statm).
double rss_mib() {
  std::ifstream in("/proc/self/statm");
  long pages = 0, resident = 0;
  in >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE)) / (1 << 20);
}

struct Throughput {
  double enqueue_per_s = 0, delivered_per_s = 0;
  std::vector<double> call_us;  // publish() call times
};

Throughput run(const std::string& url, int qos, const Args& a, const std::string& payload) {
  yolo::MqttPublisherOptions o;
  o.url = url;
  o.qos = qos;
  o.buffer.max_messages = static_cast<size_t>(a.messages) + 1;
  yolo::MqttPublisher p(o);
  const auto connect_deadline = Clock::now() + std::chrono::seconds(10);
  while (!p.stats().connected && Clock::now() < connect_deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  Throughput t;
  t.call_us.reserve(static_cast<size_t>(a.messages));
  const auto t0 = Clock::now();
  for (int i = 0; i < a.messages; ++i) {
    const auto c0 = Clock::now();
    p.publish("bench/box/cam/detections", payload);
    t.call_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - c0).count());
  }
  const double enqueue_s = std::chrono::duration<double>(Clock::now() - t0).count();
  p.flush(std::chrono::minutes(5));
  const double total_s = std::chrono::duration<double>(Clock::now() - t0).count();
  t.enqueue_per_s = a.messages / enqueue_s;
  t.delivered_per_s = static_cast<double>(p.stats().delivered) / total_s;
  return t;
}

// The broker away, first (memory the later rounds free would hide the growth): publish()
// still returns at once and the buffer holds at most its bound.
void print_broker_away(const Args& a, const std::string& payload) {
  const size_t bound_bytes = 16u << 20;
  yolo::MqttPublisherOptions o;
  o.url = "mqtt://127.0.0.1:" + std::to_string(yolo::testing::free_port());  // nobody listens
  o.buffer.max_bytes = bound_bytes;
  o.buffer.max_messages = 1000000;
  const double rss_before = rss_mib();
  std::vector<double> call_us;
  const int away_messages =
      static_cast<int>(3 * bound_bytes / static_cast<size_t>(a.payload_bytes));
  {
    yolo::MqttPublisher p(o);
    for (int i = 0; i < away_messages; ++i) {
      const auto c0 = Clock::now();
      p.publish("bench/box/cam/detections", payload);
      call_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - c0).count());
    }
    const yolo::MqttPublisherStats s = p.stats();
    const double rss_after = rss_mib();
    fmt::print("\nBroker away: {} messages ({:.1f} MiB) into a {:.0f} MiB buffer\n\n",
               away_messages, away_messages * static_cast<double>(a.payload_bytes) / (1 << 20),
               bound_bytes / double(1 << 20));
    fmt::print("| {:<34} | {:>14} |\n", "what", "value");
    fmt::print("|{:-<36}|{:->16}|\n", "", "");
    fmt::print("| {:<34} | {:>14} |\n", "queued messages", s.queued_messages);
    fmt::print("| {:<34} | {:>10.2f} MiB |\n", "queued bytes (topic + payload)",
               s.queued_bytes / double(1 << 20));
    fmt::print("| {:<34} | {:>14} |\n", "dropped (oldest first)", s.dropped);
    fmt::print("| {:<34} | {:>10.2f} MiB |\n", "process RSS growth", rss_after - rss_before);
    fmt::print("| {:<34} | {:>11.2f} us |\n", "publish() p50", percentile(call_us, 0.5));
    fmt::print("| {:<34} | {:>11.2f} us |\n", "publish() p99", percentile(call_us, 0.99));
    fmt::print("| {:<34} | {:>11.1f} us |\n", "publish() max",
               *std::max_element(call_us.begin(), call_us.end()));
  }
}

// Messages/s and publish() call times through the broker, QoS 1 and 0.
void print_throughput(const Args& a, const std::string& url, const std::string& payload) {
  fmt::print(
      "\nMQTT publishing to a local mosquitto 2.0 over loopback, {} messages of {} bytes, "
      "medians of {} rounds\n\n",
      a.messages, a.payload_bytes, a.rounds);
  fmt::print("| {:<5} | {:>18} | {:>20} | {:>16} | {:>16} | {:>16} |\n", "QoS", "publish() calls/s",
             "delivered msgs/s", "publish() p50", "publish() p99", "publish() max");
  fmt::print("|{:-<7}|{:->20}|{:->22}|{:->18}|{:->18}|{:->18}|\n", "", "", "", "", "", "");
  for (int qos : {1, 0}) {
    std::vector<double> enq, del, p50, p99, pmax;
    for (int r = 0; r < a.rounds; ++r) {
      Throughput t = run(url, qos, a, payload);
      enq.push_back(t.enqueue_per_s);
      del.push_back(t.delivered_per_s);
      p50.push_back(percentile(t.call_us, 0.5));
      p99.push_back(percentile(t.call_us, 0.99));
      pmax.push_back(*std::max_element(t.call_us.begin(), t.call_us.end()));
    }
    fmt::print("| {:<5} | {:>18.0f} | {:>20.0f} | {:>13.2f} us | {:>13.2f} us | {:>13.1f} us |\n",
               qos, median(enq), median(del), median(p50), median(p99), median(pmax));
  }
}

// Per frame, what a counting and publishing stream adds after the tracker: the analytics on
// its tracks (2 lines, 2 zones) and the MQTT output of its detections and events (JSON and
// publish(): what runs on the streaming thread).
void print_per_frame(const std::string& url) {
  fmt::print(
      "\nPer frame after the tracker (1280x720 frames, 2 lines and 2 zones, detections "
      "published every frame), medians over 2000 frames\n\n");
  fmt::print("| {:<44} | {:>10} | {:>10} |\n", "stage", "10 tracks", "100 tracks");
  fmt::print("|{:-<46}|{:->12}|{:->12}|\n", "", "", "");
  yolo::analytics::AnalyticsConfig config;
  config.lines = {{"a", {640, 0}, {640, 720}, {}}, {"b", {0, 360}, {1280, 380}, {}}};
  config.zones = {{"z1", {{100, 100}, {500, 100}, {500, 600}, {100, 600}}, 30.0},
                  {"z2", {{700, 50}, {1200, 80}, {1100, 700}, {800, 650}}, {}}};
  yolo::MqttOutputOptions mo;
  mo.url = url;
  mo.topic = "bench";
  mo.device_id = "bench";
  mo.detections_every = 1;
  yolo::MqttOutput output(mo, nullptr);
  std::vector<double> analytics_us[2], publish_us[2];
  for (int k = 0; k < 2; ++k) {
    const int n = k == 0 ? 10 : 100;
    yolo::analytics::StreamAnalytics analytics("cam", config);
    for (int f = 0; f < 2000; ++f) {
      yolo::analytics::AnalyticsFrame frame;
      frame.frame = f;
      frame.pts_ns = int64_t{f} * 33'333'333;
      frame.width = 1280;
      frame.height = 720;
      yolo::FrameResult result;
      result.stream_id = "cam";
      result.seq = static_cast<uint64_t>(f + 1);
      result.frame = f;
      result.width = 1280;
      result.height = 720;
      for (int i = 0; i < n; ++i) {
        // Objects walking right at different speeds and heights: they cross the lines.
        const float x = static_cast<float>((i * 97 + f * (1 + i % 5)) % 1240);
        const float y = static_cast<float>((i * 53) % 680);
        frame.objects.push_back({i + 1, i % 3, "person", x, y, x + 40, y + 40});
        result.detections.push_back({x, y, x + 40, y + 40, 0.8f, i % 3, "person"});
        result.detections.back().track_id = i + 1;
      }
      const auto a0 = Clock::now();
      nlohmann::json events = nlohmann::json::array();
      for (const auto& e : analytics.update(frame)) events.push_back(yolo::analytics::to_json(e));
      const auto a1 = Clock::now();
      output.publish_events("cam", events);
      output.publish_detections(result);
      const auto a2 = Clock::now();
      analytics_us[k].push_back(std::chrono::duration<double, std::micro>(a1 - a0).count());
      publish_us[k].push_back(std::chrono::duration<double, std::micro>(a2 - a1).count());
    }
  }
  fmt::print("| {:<44} | {:>7.1f} us | {:>7.1f} us |\n", "analytics update (events as JSON)",
             median(analytics_us[0]), median(analytics_us[1]));
  fmt::print("| {:<44} | {:>7.1f} us | {:>7.1f} us |\n",
             "MQTT output: events + detections to the buffer", median(publish_us[0]),
             median(publish_us[1]));
  output.flush(std::chrono::seconds(30));
}

int run_bench(int argc, char** argv) {
  yolo::log::init();
  Args a;
  CLI::App app{"bench_mqtt: MQTT publishing throughput, call time and buffer bound"};
  app.add_option("--messages", a.messages, "messages per round")->capture_default_str();
  app.add_option("--payload-bytes", a.payload_bytes, "bytes per message")->capture_default_str();
  app.add_option("--rounds", a.rounds, "rounds (medians)")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);  // the publisher logs its connections

  if (yolo::testing::mosquitto_binary().empty()) {
    std::fprintf(stderr, "bench_mqtt: mosquitto is not installed (tools/install-deps.sh)\n");
    return 2;
  }
  const fs::path dir = fs::temp_directory_path() / ("bench_mqtt_" + std::to_string(::getpid()));
  yolo::testing::MosquittoTestBroker broker(dir);
  broker.start();
  const std::string payload(static_cast<size_t>(a.payload_bytes), 'x');

  print_broker_away(a, payload);
  print_throughput(a, broker.url(), payload);
  print_per_frame(broker.url());
  fs::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return run_bench(argc, argv);
}
