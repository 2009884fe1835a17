// yolo-monitor's MQTT output (docs/monitor.md#outputs): every analytics event as one message and,
// when asked, the detections of every Nth result or of a result whose tracks changed, as
// versioned JSON with the box's device id and the config's tags
// (docs/detections-json.md#mqtt-messages), to <topic>/<device_id>/<stream>/events and
// <topic>/<device_id>/<stream>/detections.
//
// Never holds a stream up: publishing appends to the publisher's bounded buffer, and a broker
// that is away only fills it (yolo/serving/mqtt_publisher.h: reconnects with backoff, sends in
// order, drops the oldest when full and counts it). Thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "yolo/monitor/monitor_config.h"
#include "yolo/serving/metrics_registry.h"

namespace yolo {
struct FrameResult;
class MqttPublisher;
}  // namespace yolo

namespace yolo::monitor {

class MqttOutput {
 public:
  // Starts the publisher (it connects in the background). Throws std::invalid_argument or
  // std::runtime_error, naming the setting, for options the publisher refuses (a missing
  // password_file or CA file). `metrics` (optional) gets the yolo_publish_* series and must
  // outlive this object.
  MqttOutput(const MqttOutputConfig& config, MetricsRegistry* metrics);
  ~MqttOutput();
  MqttOutput(const MqttOutput&) = delete;
  MqttOutput& operator=(const MqttOutput&) = delete;

  // A stream's events (the analytics' JSON), one message each.
  void publish_events(const std::string& stream_id, const nlohmann::json& events);
  // A result: published when the rate settings say so.
  void publish_detections(const FrameResult& result);
  void forget(const std::string& stream_id);

  // For /health: {"url", "state", "connected", "last_error", "queued", "dropped", ...}.
  nlohmann::json health() const;
  // Waits up to `timeout` for the buffer to empty (clean shutdown).
  bool flush(std::chrono::milliseconds timeout);

  // The envelope every message gets: the schema version, the kind, the device and the tags.
  nlohmann::json envelope(const char* kind, nlohmann::json body) const;
  const std::string& device_id() const { return device_id_; }
  std::string topic(const std::string& stream_id, const char* kind) const;

 private:
  void send(const std::string& topic, const nlohmann::json& message);

  struct StreamRate {
    uint64_t results = 0;
    std::string last_signature;  // track ids and box count of the last published result
  };

  const MqttOutputConfig config_;
  const std::string device_id_;
  std::unique_ptr<MqttPublisher> publisher_;
  std::mutex mutex_;
  std::map<std::string, StreamRate> streams_;
  MetricsRegistry::CollectorHandle collector_;  // last: unregistered before the publisher goes
};

}  // namespace yolo::monitor
