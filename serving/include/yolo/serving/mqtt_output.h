// Results and events to an MQTT broker, for yolo-monitor's outputs.mqtt (docs/monitor.md#outputs)
// and the yolopublish element (docs/gst-yolo.md): every analytics event as one message and,
// when asked, the detections of every Nth result or of a result whose tracks changed, as
// versioned JSON with the box's device id and the config's tags
// (docs/detections-json.md#mqtt-messages), to <topic>/<device_id>/<stream>/events and
// <topic>/<device_id>/<stream>/detections.
//
// Never holds a stream up: publishing appends to the publisher's bounded buffer, and a broker
// that is away only fills it (yolo/mqtt/mqtt_publisher.h: reconnects with backoff, sends in
// order, drops the oldest when full and counts it). Thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "yolo/serving/metrics_registry.h"
#include "yolo/serving/mqtt_topic.h"

namespace yolo {

struct FrameResult;
class MqttPublisher;

// What and where to publish; the connection settings are the publisher's (mqtt_publisher.h).
struct MqttOutputOptions {
  std::string url;                  // mqtt://host[:port] or mqtts://; required
  std::string topic = "yolo-edge";  // prefix: <topic>/<device_id>/<stream>/{events,detections}
  int qos = 1;                      // 0 at most once, 1 at least once
  std::string client_id;            // empty: yolo-edge-<hostname>-<pid>
  std::string username;
  std::string password_file;  // the password or token, one line
  std::string tls_ca, tls_cert, tls_key;
  std::uint64_t buffer_max_messages = 10000;  // held while the broker is away; oldest dropped
  std::uint64_t buffer_max_bytes = 64 << 20;
  int detections_every = 0;           // publish every Nth result's detections; 0: none
  bool detections_on_change = false;  // also a result whose tracks or box count changed
  std::string device_id;              // empty: the host name
  nlohmann::json tags = nlohmann::json::object();  // copied into every message
};

// What MqttOutput's constructor checks, without connecting: the url, the topic and device id,
// every file the options name (password_file, TLS CA, certificate, key) opened and read, and a
// warning for secrets other users can read. Throws as the constructor does (`yolo-monitor
// --check`).
void check_mqtt_output_options(const MqttOutputOptions& options);

class MqttOutput {
 public:
  // Starts the publisher (it connects in the background). Throws std::invalid_argument or
  // std::runtime_error, naming the setting, for options the publisher refuses (a missing
  // password_file or CA file). `metrics` (optional) gets the yolo_publish_* series and must
  // outlive this object.
  MqttOutput(const MqttOutputOptions& options, MetricsRegistry* metrics);
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

  const MqttOutputOptions config_;
  const std::string device_id_;
  std::unique_ptr<MqttPublisher> publisher_;
  std::mutex mutex_;
  std::map<std::string, StreamRate> streams_;
  MetricsRegistry::CollectorHandle collector_;  // last: unregistered before the publisher goes
};

}  // namespace yolo
