// An MQTT subscriber for tests (libmosquitto with its own network thread): subscribes to one
// topic at QoS 1 on 127.0.0.1:<port>, records every payload in arrival order, and reconnects by
// itself (once a second) when the broker goes away, subscribing again each time. With
// persistent = true it keeps its session on the broker (clean_session false, fixed client id),
// so a persistent broker queues messages for it while it is away.
#pragma once

#include <mosquitto.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace yolo::testing {

class MqttTestSubscriber {
 public:
  MqttTestSubscriber(int port, std::string topic, const std::string& client_id, bool persistent,
                     const std::string& username = "", const std::string& password = "")
      : topic_(std::move(topic)) {
    mosquitto_lib_init();
    client_ = mosquitto_new(client_id.c_str(), !persistent, this);
    if (!client_) throw std::runtime_error("mosquitto_new failed");
    mosquitto_int_option(client_, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311);
    if (!username.empty()) mosquitto_username_pw_set(client_, username.c_str(), password.c_str());
    mosquitto_connect_callback_set(client_, on_connect);
    mosquitto_disconnect_callback_set(client_, on_disconnect);
    mosquitto_subscribe_callback_set(client_, on_subscribe);
    mosquitto_message_callback_set(client_, on_message);
    mosquitto_reconnect_delay_set(client_, 1, 1, false);  // whole seconds: the shortest there is
    if (mosquitto_connect_async(client_, "127.0.0.1", port, 10) != MOSQ_ERR_SUCCESS)
      throw std::runtime_error("subscriber cannot start connecting");
    if (mosquitto_loop_start(client_) != MOSQ_ERR_SUCCESS)
      throw std::runtime_error("subscriber cannot start its thread");
  }
  ~MqttTestSubscriber() {
    mosquitto_disconnect(client_);
    mosquitto_loop_stop(client_, false);
    mosquitto_destroy(client_);
  }
  MqttTestSubscriber(const MqttTestSubscriber&) = delete;
  MqttTestSubscriber& operator=(const MqttTestSubscriber&) = delete;

  // Waits until the subscription is acknowledged (again, after `previous` SUBACKs).
  bool wait_subscribed(std::chrono::milliseconds timeout, int previous = 0) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return subscribed_ > previous && connected_; });
  }
  int subscriptions() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return subscribed_;
  }
  bool wait_count(size_t n, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return messages_.size() >= n; });
  }
  std::vector<std::string> messages() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return messages_;
  }

 private:
  static void on_connect(mosquitto* m, void* self, int rc) {
    auto* me = static_cast<MqttTestSubscriber*>(self);
    if (rc != 0) return;
    mosquitto_subscribe(m, nullptr, me->topic_.c_str(), 1);
    std::lock_guard<std::mutex> lock(me->mutex_);
    me->connected_ = true;
  }
  static void on_disconnect(mosquitto*, void* self, int) {
    auto* me = static_cast<MqttTestSubscriber*>(self);
    std::lock_guard<std::mutex> lock(me->mutex_);
    me->connected_ = false;
  }
  static void on_subscribe(mosquitto*, void* self, int, int, const int*) {
    auto* me = static_cast<MqttTestSubscriber*>(self);
    {
      std::lock_guard<std::mutex> lock(me->mutex_);
      ++me->subscribed_;
    }
    me->changed_.notify_all();
  }
  static void on_message(mosquitto*, void* self, const mosquitto_message* msg) {
    auto* me = static_cast<MqttTestSubscriber*>(self);
    {
      std::lock_guard<std::mutex> lock(me->mutex_);
      me->messages_.emplace_back(static_cast<const char*>(msg->payload),
                                 static_cast<size_t>(msg->payloadlen));
    }
    me->changed_.notify_all();
  }

  std::string topic_;
  mosquitto* client_ = nullptr;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool connected_ = false;
  int subscribed_ = 0;
  std::vector<std::string> messages_;
};

}  // namespace yolo::testing
