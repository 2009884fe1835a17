#include "yolo/serving/mqtt_output.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <vector>

#include "yolo/mqtt/mqtt_publisher.h"
#include "yolo/runtime/detection.h"

namespace yolo {
namespace {

// Bumped when a field changes meaning or goes away; new fields keep the version.
constexpr int kSchemaVersion = 1;

std::string host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "unknown-host";
  return name;
}

MqttPublisherOptions publisher_options(const MqttOutputOptions& c) {
  MqttPublisherOptions o;
  o.url = c.url;
  o.client_id = c.client_id;
  o.username = c.username;
  o.password_file = c.password_file;
  o.qos = c.qos;
  o.tls.ca_file = c.tls_ca;
  o.tls.cert_file = c.tls_cert;
  o.tls.key_file = c.tls_key;
  o.buffer.max_messages = static_cast<size_t>(c.buffer_max_messages);
  o.buffer.max_bytes = static_cast<size_t>(c.buffer_max_bytes);
  return o;
}

// What "changed" means for on_change: the set of track ids, or the box count when untracked.
std::string signature_of(const FrameResult& r) {
  std::vector<int64_t> ids;
  for (const auto& d : r.detections) ids.push_back(d.track_id);
  std::sort(ids.begin(), ids.end());
  std::string s = std::to_string(r.detections.size());
  for (int64_t id : ids) s += "," + std::to_string(id);
  return s;
}

// The topic prefix and device id every message is published under; throws naming the bad one.
void check_topic_and_device_id(const std::string& topic, const std::string& device_id) {
  if (const std::string why = mqtt_topic_problem(topic); !why.empty())
    throw std::invalid_argument("mqtt topic '" + topic + "' " + why);
  if (const std::string why = mqtt_device_id_problem(device_id); !why.empty())
    throw std::invalid_argument("mqtt device id '" + device_id + "' " + why);
}

}  // namespace

void check_mqtt_output_options(const MqttOutputOptions& options) {
  MqttPublisher::check(publisher_options(options));
  check_topic_and_device_id(options.topic,
                            options.device_id.empty() ? host_name() : options.device_id);
}

MqttOutput::MqttOutput(const MqttOutputOptions& config, MetricsRegistry* metrics)
    : config_(config),
      device_id_(config.device_id.empty() ? host_name() : config.device_id),
      publisher_(std::make_unique<MqttPublisher>(publisher_options(config))) {
  check_topic_and_device_id(config_.topic, device_id_);
  spdlog::info("mqtt: publishing to {} under {}/{}/ as client {}", publisher_->broker(),
               config_.topic, device_id_, publisher_->client_id());
  if (!metrics) return;
  metrics->declare("yolo_publish_connected", MetricType::kGauge,
                   "1 while connected to the MQTT broker", {});
  metrics->declare("yolo_publish_messages_total", MetricType::kCounter,
                   "MQTT messages by outcome: enqueued, delivered, dropped (buffer full), "
                   "dropped_too_big",
                   {"outcome"});
  metrics->declare("yolo_publish_dropped_total", MetricType::kCounter,
                   "MQTT messages dropped because the buffer was full while the broker was away",
                   {});
  metrics->declare("yolo_publish_queued_messages", MetricType::kGauge,
                   "MQTT messages waiting in the buffer", {});
  metrics->declare("yolo_publish_reconnects_total", MetricType::kCounter,
                   "MQTT connection attempts after the first", {});
  collector_ = metrics->add_collector([p = publisher_.get()](MetricsRegistry& r) {
    const MqttPublisherStats s = p->stats();
    r.set("yolo_publish_connected", {}, s.connected ? 1 : 0);
    r.set("yolo_publish_messages_total", {"enqueued"}, static_cast<double>(s.enqueued));
    r.set("yolo_publish_messages_total", {"delivered"}, static_cast<double>(s.delivered));
    r.set("yolo_publish_messages_total", {"dropped"}, static_cast<double>(s.dropped));
    r.set("yolo_publish_messages_total", {"dropped_too_big"},
          static_cast<double>(s.dropped_too_big));
    r.set("yolo_publish_dropped_total", {}, static_cast<double>(s.dropped));
    r.set("yolo_publish_queued_messages", {}, static_cast<double>(s.queued_messages));
    r.set("yolo_publish_reconnects_total", {}, static_cast<double>(s.reconnects));
  });
}

MqttOutput::~MqttOutput() {
  collector_.reset();  // before the publisher it reads
}

nlohmann::json MqttOutput::envelope(const char* kind, nlohmann::json body) const {
  body["schema_version"] = kSchemaVersion;
  body["kind"] = kind;
  body["device_id"] = device_id_;
  if (!config_.tags.empty()) body["tags"] = config_.tags;
  return body;
}

std::string MqttOutput::topic(const std::string& stream_id, const char* kind) const {
  return config_.topic + "/" + device_id_ + "/" + stream_id + "/" + kind;
}

void MqttOutput::publish_events(const std::string& stream_id, const nlohmann::json& events) {
  for (const auto& e : events) send(topic(stream_id, "events"), envelope("event", e));
}

void MqttOutput::send(const std::string& topic, const nlohmann::json& message) {
  try {
    publisher_->publish(topic,
                        message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  } catch (const std::exception& e) {
    // The topic's parts are checked when the config is read; this is a last guard, so a stream
    // never dies of its output.
    spdlog::error("mqtt: a message to {} was not published: {}", topic, e.what());
  }
}

void MqttOutput::publish_detections(const FrameResult& result) {
  if (config_.detections_every <= 0 && !config_.detections_on_change) return;
  bool due = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    StreamRate& s = streams_[result.stream_id];
    const uint64_t n = s.results++;
    due = config_.detections_every > 0 && n % static_cast<uint64_t>(config_.detections_every) == 0;
    if (config_.detections_on_change) {
      std::string signature = signature_of(result);
      due = due || signature != s.last_signature;
      s.last_signature = std::move(signature);
    }
  }
  if (due) send(topic(result.stream_id, "detections"), envelope("detections", to_json(result)));
}

void MqttOutput::forget(const std::string& stream_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  streams_.erase(stream_id);
}

nlohmann::json MqttOutput::health() const {
  const MqttPublisherStats s = publisher_->stats();
  return {{"broker", publisher_->broker()},
          {"state", to_string(s.state)},
          {"connected", s.connected},
          {"last_error", s.last_error.empty() ? nlohmann::json() : nlohmann::json(s.last_error)},
          {"queued", s.queued_messages},
          {"delivered", s.delivered},
          {"dropped", s.dropped},
          {"reconnects", s.reconnects}};
}

bool MqttOutput::flush(std::chrono::milliseconds timeout) {
  return publisher_->flush(timeout);
}

}  // namespace yolo
