// An MQTT publisher for boxes whose broker comes and goes (docs/mqtt-publisher.md).
//
// publish() only appends to a bounded in-memory buffer (it never waits for the network); one
// background thread connects, sends the buffer strictly in order and reconnects with exponential
// backoff, forever, until stop() or destruction. With QoS 1 a message leaves the buffer only when
// the broker acknowledged it (PUBACK); whatever was not acknowledged when a connection ended is
// sent again, in order, on the next one: at-least-once, so a subscriber may see duplicates. QoS 0
// messages leave when handed to the socket (at most once). When the buffer is full the oldest
// message is dropped and counted.
//
// Errors: bad options throw from the constructor (std::invalid_argument for a value, and
// yolo::UsageError, a std::runtime_error, for a file that cannot be read), each naming the option
// and what to do. Once running, nothing throws: connection problems show up in stats().state and
// stats().last_error, are logged once per distinct problem, and are retried. Passwords never
// appear in messages, logs or stats.
//
// Thread model: every method is thread-safe. libmosquitto is used from the background thread
// only, with callbacks that run on that thread; nothing of the caller runs there.
// No LibTorch: links yolo_core_base and libmosquitto only.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace yolo {

struct MqttTlsOptions {
  // PEM file with the CA certificate(s) that signed the broker's certificate. Empty with
  // mqtts://: the system's CA store (Debian: /etc/ssl/certs) is trusted instead.
  std::string ca_file;
  // Client certificate (PEM) and its unencrypted private key, for brokers that require one
  // (`require_certificate true`). Both or neither.
  std::string cert_file;
  std::string key_file;
};

struct MqttBufferLimits {
  size_t max_messages = 10000;          // messages held at most (>= 1)
  size_t max_bytes = 64 * 1024 * 1024;  // topic + payload bytes held at most (>= 1, <= 256 MiB)
};

struct MqttReconnectBackoff {
  // The first wait after a failed or lost connection; it doubles per failure up to max and is
  // back to min after a successful connection. Each wait is shortened by up to 20 % at random.
  std::chrono::milliseconds min{1000};   // >= 1 ms
  std::chrono::milliseconds max{30000};  // >= min
};

struct MqttPublisherOptions {
  // mqtt://host[:port] (TCP, default port 1883) or mqtts://host[:port] (TLS, default 8883).
  // Credentials in the url are refused: use username and password_file.
  std::string url;
  // MQTT client identifier; empty: "yolo-edge-<hostname>-<pid>". Two clients with the same id
  // make the broker disconnect the older one.
  std::string client_id;
  // Empty: connect anonymously.
  std::string username;
  // File holding the password or token (one line; a trailing newline is ignored). Read when the
  // publisher is made and again before every connection attempt, so a rotated token is picked up
  // without a restart. Needs username.
  std::string password_file;
  // Seconds between PINGREQs when idle; a broker silent for about twice this is taken as gone
  // (5..65535). A broker that crashes or closes the connection is noticed at once anyway.
  std::chrono::seconds keepalive{30};
  // Default QoS of publish(): 0 (at most once) or 1 (at least once). QoS 2 is not supported.
  int qos = 1;
  MqttTlsOptions tls;
  MqttBufferLimits buffer;
  MqttReconnectBackoff reconnect;
  // QoS 1 messages sent and not yet acknowledged, at most (1..65535). Bounds memory in the client
  // library and what is resent after a reconnect; in-order sending needs no smaller value.
  size_t max_inflight = 100;
  // A connection attempt that has no CONNACK after this long is abandoned and retried (>= 1 ms).
  std::chrono::milliseconds connect_timeout{10000};
};

enum class MqttConnectionState {
  kConnecting,    // an attempt is under way (TCP, TLS handshake, waiting for CONNACK)
  kConnected,     // CONNACK received; the buffer is being sent
  kDisconnected,  // the last attempt failed or the connection was lost; waiting to retry
  kStopped,       // stop() was called; nothing more will be sent
};

const char* to_string(MqttConnectionState state);

// A snapshot of the publisher, for /health and Prometheus. Counters only grow. At any time
// enqueued == delivered + dropped + dropped_invalid + queued_messages.
struct MqttPublisherStats {
  MqttConnectionState state = MqttConnectionState::kConnecting;
  bool connected = false;  // state == kConnected
  // The latest connection problem as a sentence ("the broker mqtt://host:1883 refused the
  // connection: not authorised (check username and password_file)"); kept after recovery so an
  // operator can see what happened, empty if there never was one.
  std::string last_error;
  uint64_t enqueued = 0;         // publish() calls that were accepted into the buffer
  uint64_t sent = 0;             // PUBLISH packets handed to the socket, resends included
  uint64_t resent = 0;           // of those, resends of unacknowledged QoS 1 messages
  uint64_t acknowledged = 0;     // QoS 1 messages the broker acknowledged (PUBACK)
  uint64_t delivered = 0;        // messages that left the buffer done: QoS 0 sent + QoS 1 acked
  uint64_t dropped = 0;          // oldest messages dropped because the buffer was full
  uint64_t dropped_too_big = 0;  // publish() calls refused: message larger than max_bytes
  uint64_t dropped_invalid = 0;  // messages the client library refused to send (should stay 0)
  uint64_t connections = 0;      // successful connections (CONNACK accepted)
  uint64_t reconnects = 0;       // connection attempts after the first one, failed or not
  size_t queued_messages = 0;    // held in the buffer now, in flight included
  size_t queued_bytes = 0;       // their topic + payload bytes
  size_t in_flight = 0;          // QoS 1 messages sent and waiting for PUBACK now
};

class MqttPublisher {
 public:
  // Checks the options (throws, see above), reads password_file, then starts the background
  // thread, which connects at once.
  explicit MqttPublisher(MqttPublisherOptions options);
  // The constructor's checks alone (password_file and TLS files read), without connecting.
  static void check(const MqttPublisherOptions& options);
  // stop(): returns at once even when the broker is unreachable (a host name lookup under way
  // is waited for). Messages still buffered are lost; call flush() first to wait for them.
  ~MqttPublisher();
  MqttPublisher(const MqttPublisher&) = delete;
  MqttPublisher& operator=(const MqttPublisher&) = delete;

  // Appends a message with the default QoS / the given QoS (0 or 1). Never waits for the
  // network. Returns false, and counts dropped_too_big, when topic + payload exceed max_bytes;
  // returns false after stop(). Throws std::invalid_argument for a topic MQTT forbids for
  // publishing (empty, '+' or '#', not UTF-8) or a QoS other than 0 and 1.
  bool publish(std::string topic, std::string payload);
  bool publish(std::string topic, std::string payload, int qos);

  // Waits until the buffer is empty (everything delivered), up to `timeout`. True if it emptied.
  bool flush(std::chrono::milliseconds timeout);

  // Disconnects cleanly if connected and ends the background thread. Idempotent.
  void stop();

  MqttPublisherStats stats() const;

  // The broker address as used ("mqtts://host:8883") and the client id actually sent.
  const std::string& broker() const;
  const std::string& client_id() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace yolo
