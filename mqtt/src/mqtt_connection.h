// One connection to the broker through libmosquitto, driven by the publisher's thread.
//
// Each attempt gets a fresh libmosquitto client (clean session): the library keeps its own copy
// of unacknowledged messages and would resend them after a reconnect on its own; with a fresh
// client per connection the publisher's outbox stays the one place where messages wait, so the
// outbox alone decides what is resent, in which order, and what is dropped when it is full.
//
// The socket is polled here rather than in mosquitto_loop() so that a wake-up descriptor (new
// messages, stop) ends the wait at once. Every libmosquitto call and callback happens on the
// thread that owns this object; callbacks only record what happened in it.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "mqtt_options.h"

struct mosquitto;

namespace yolo::mqtt_detail {

class MqttConnection {
 public:
  MqttConnection(const CheckedOptions& checked, std::string password);
  ~MqttConnection();
  MqttConnection(const MqttConnection&) = delete;
  MqttConnection& operator=(const MqttConnection&) = delete;

  // Starts a non-blocking connect (the host name lookup still blocks). False when it failed at
  // once; error() says why.
  bool start();

  // Waits up to `timeout` for the socket or for `wake_fd` to become readable, then lets
  // libmosquitto read, write and keep the connection alive. False when the connection has ended
  // (error() says why). Reading wake_fd is the caller's business.
  bool service(int wake_fd, std::chrono::milliseconds timeout);

  // CONNACK accepted and not lost since.
  bool connected() const { return connected_ && !ended_; }
  // Connected and the socket took everything handed to it so far: handing more will not grow
  // libmosquitto's own queue (which is outside the outbox's bounds).
  bool ready_to_send() const;

  enum class SendResult {
    kSent,             // handed over; *mid is its packet id
    kMessageRefused,   // libmosquitto will never send this message (*rc says why); others may go
    kConnectionEnded,  // the connection broke; error() says why
  };
  // Hands a message to libmosquitto, which writes it to the socket at once when it has room.
  SendResult publish(const std::string& topic, const std::string& payload, int qos, int* mid,
                     int* rc);

  // Packet ids acknowledged (PUBACK) since the last call.
  std::vector<int> take_acknowledged();

  // Sends DISCONNECT when connected (best effort, does not wait).
  void disconnect();

  // Why the connection ended or could not start; empty while it is fine.
  const std::string& error() const { return error_; }
  bool was_connected() const { return connected_; }

 private:
  static void on_connect(mosquitto*, void* self, int code);
  static void on_disconnect(mosquitto*, void* self, int rc);
  static void on_publish(mosquitto*, void* self, int mid);
  static void on_log(mosquitto*, void* self, int level, const char* text);

  bool configure();
  bool end(int rc, int error_number);
  bool end_with(std::string error);

  const CheckedOptions& checked_;
  const std::string password_;
  std::unique_ptr<mosquitto, void (*)(mosquitto*)> client_;
  bool connected_ = false;  // a CONNACK accepted the connection
  bool ended_ = false;
  int refused_code_ = 0;  // CONNACK return code when the broker refused
  bool disconnect_seen_ = false;
  int disconnect_rc_ = 0, disconnect_errno_ = 0;
  std::string tls_detail_;  // OpenSSL's first complaint during this connection
  std::vector<int> acknowledged_;
  std::string error_;
};

}  // namespace yolo::mqtt_detail
