// The publisher's background thread: connect, send the outbox in order, collect PUBACKs,
// reconnect with backoff. See mqtt_publisher.h for the contract and mqtt_connection.h for why
// each connection gets a fresh libmosquitto client.
#include "yolo/mqtt/mqtt_publisher.h"

#include <mosquitto.h>
#include <poll.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include "mqtt_connection.h"
#include "mqtt_options.h"
#include "mqtt_outbox.h"
#include "mqtt_wakeup.h"
#include "yolo/core/backoff.h"
#include "yolo/core/log.h"

namespace yolo {

using namespace mqtt_detail;
using Clock = std::chrono::steady_clock;

namespace {

// Messages handed to the connection per pass before the socket is looked at again, so that
// PUBACKs and keepalive are served while a large backlog drains.
constexpr int kSendBatch = 256;
// How long one wait for the socket lasts when nothing happens: libmosquitto's keepalive works in
// whole seconds, so a second is fine-grained enough.
constexpr std::chrono::milliseconds kIdlePoll{1000};
// While connecting, the connect timeout is checked this often.
constexpr std::chrono::milliseconds kConnectingPoll{100};

void check_topic(const std::string& topic) {
  if (topic.empty()) throw std::invalid_argument("MQTT publish: the topic is empty");
  if (topic.size() > 65535)
    throw std::invalid_argument("MQTT publish: the topic is longer than 65535 bytes");
  if (mosquitto_pub_topic_check2(topic.c_str(), topic.size()) != MOSQ_ERR_SUCCESS)
    throw std::invalid_argument("MQTT publish: the topic '" + topic +
                                "' contains a wildcard ('+' or '#'), which is only allowed in "
                                "subscriptions");
  if (mosquitto_validate_utf8(topic.c_str(), static_cast<int>(topic.size())) != MOSQ_ERR_SUCCESS)
    throw std::invalid_argument("MQTT publish: the topic is not valid UTF-8");
}

// libmosquitto (and OpenSSL under it) writes to sockets with write()/send() without
// MSG_NOSIGNAL: a write after the broker reset the connection raises SIGPIPE, which by default
// ends the process. Linux reports the first such write as ECONNRESET, and OpenSSL 3 sends no
// close_notify after a failed read, so it is rare here, but OpenSSL 1.1 builds do write one. All
// writes happen on the publisher's thread, so blocking the signal there alone turns it into an
// EPIPE error that the reconnect logic handles, without touching the process-wide disposition,
// which belongs to the program.
void block_sigpipe_on_this_thread() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

// A blocked SIGPIPE stays pending on the thread; taking it keeps the pending set clean.
void discard_pending_sigpipe() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  const timespec zero{0, 0};
  while (sigtimedwait(&set, nullptr, &zero) > 0) {
  }
}

std::string describe_buffer(const MqttBufferLimits& b) {
  return std::to_string(b.max_messages) + " messages / " + std::to_string(b.max_bytes) + " bytes";
}

}  // namespace

const char* to_string(MqttConnectionState state) {
  switch (state) {
    case MqttConnectionState::kConnecting:
      return "connecting";
    case MqttConnectionState::kConnected:
      return "connected";
    case MqttConnectionState::kDisconnected:
      return "disconnected";
    case MqttConnectionState::kStopped:
      return "stopped";
  }
  return "unknown";
}

class MqttPublisher::Impl {
 public:
  explicit Impl(CheckedOptions checked);
  ~Impl() { stop(); }

  bool publish(std::string topic, std::string payload, int qos);
  bool flush(std::chrono::milliseconds timeout);
  void stop();
  MqttPublisherStats stats() const;

  const CheckedOptions checked;
  const std::string broker;

 private:
  struct AttemptResult {
    std::string error;  // empty when it ended because of stop()
    bool was_connected = false;
  };

  void run();
  AttemptResult attempt();
  void on_connected();
  // Hands unsent messages to the connection while it has room; true if more could go now.
  bool send_ready(MqttConnection& connection);
  void acknowledge(const std::vector<int>& mids);
  void on_connection_ended(const std::string& error);
  void wait(std::chrono::milliseconds delay);
  void notify_if_empty();

  mutable std::mutex mutex_;
  std::condition_variable emptied_;
  MqttOutbox outbox_;             // guarded by mutex_
  MqttPublisherStats counters_;   // guarded by mutex_ (queued_* filled in by stats())
  bool stopped_ = false;          // guarded by mutex_: publish() refuses from now on
  bool dropping_logged_ = false;  // guarded by mutex_: "buffer full" said since it last emptied
  bool too_big_logged_ = false;   // guarded by mutex_
  std::atomic<bool> stop_requested_{false};
  std::mutex stop_mutex_;  // makes stop() wait for the thread in every caller
  Wakeup wakeup_;
  // The thread's own: each distinct problem is logged once; how it came back is told once.
  std::string last_logged_error_;
  uint64_t failed_attempts_ = 0;  // since the last successful connection
  bool ever_connected_ = false;
  std::thread thread_;  // last: starts once everything above exists
};

MqttPublisher::Impl::Impl(CheckedOptions c)
    : checked(std::move(c)),
      broker(checked.broker.display()),
      outbox_(checked.options.buffer.max_messages, checked.options.buffer.max_bytes) {
  spdlog::info("MQTT publisher to {} as client id '{}' (QoS {}, buffer {})", broker,
               checked.options.client_id, checked.options.qos,
               describe_buffer(checked.options.buffer));
  thread_ = std::thread([this] { run(); });
}

bool MqttPublisher::Impl::publish(std::string topic, std::string payload, int qos) {
  check_qos(qos, "publish qos");
  check_topic(topic);
  // Built before the lock: only the append itself is serialised with other callers.
  auto message = std::make_shared<const OutboxMessage>(
      OutboxMessage{std::move(topic), std::move(payload), qos});
  const size_t size = message->bytes();
  bool accepted = false, log_too_big = false, log_dropping = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_) return false;
    const PushOutcome outcome = outbox_.push(std::move(message));
    accepted = outcome.accepted;
    if (!accepted) {
      ++counters_.dropped_too_big;
      log_too_big = !std::exchange(too_big_logged_, true);
    } else {
      ++counters_.enqueued;
      counters_.dropped += outcome.dropped_oldest;
      if (outcome.dropped_oldest > 0) log_dropping = !std::exchange(dropping_logged_, true);
    }
  }
  if (log_too_big)
    spdlog::warn(
        "MQTT publisher: a message of {} bytes is larger than buffer.max_bytes ({}) and "
        "was dropped; further ones are only counted (dropped_too_big)",
        size, checked.options.buffer.max_bytes);
  if (log_dropping)
    spdlog::warn(
        "MQTT publisher: the buffer is full ({}); dropping the oldest messages until the "
        "broker {} takes them again (counted in dropped)",
        describe_buffer(checked.options.buffer), broker);
  if (accepted) wakeup_.notify();
  return accepted;
}

bool MqttPublisher::Impl::flush(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  emptied_.wait_for(lock, timeout, [this] { return outbox_.empty() || stopped_; });
  return outbox_.empty();
}

void MqttPublisher::Impl::stop() {
  std::lock_guard<std::mutex> stopping(stop_mutex_);
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
  }
  stop_requested_ = true;
  wakeup_.notify();
  thread_.join();
  size_t left = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    left = outbox_.messages();
  }
  emptied_.notify_all();
  if (left > 0)
    spdlog::warn("MQTT publisher to {} stopped with {} messages not delivered", broker, left);
}

MqttPublisherStats MqttPublisher::Impl::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  MqttPublisherStats s = counters_;
  s.queued_messages = outbox_.messages();
  s.queued_bytes = outbox_.bytes();
  s.in_flight = outbox_.in_flight();
  return s;
}

void MqttPublisher::Impl::run() {
  block_sigpipe_on_this_thread();
  // Each wait shortened by up to a fifth, so that boxes that lost the same broker do not all
  // come back in the same second.
  Backoff backoff({checked.options.reconnect.min, checked.options.reconnect.max, 0.2});
  for (bool first = true; !stop_requested_; first = false) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!first) ++counters_.reconnects;
      counters_.state = MqttConnectionState::kConnecting;
    }
    AttemptResult result;
    try {
      result = attempt();
    } catch (const std::exception& e) {
      // Nothing in an attempt is expected to throw (allocation aside); whatever it is, it must
      // not end the thread: it counts as a failed attempt.
      result.error = std::string("unexpected error: ") + e.what();
    }
    discard_pending_sigpipe();
    if (stop_requested_) break;
    if (result.was_connected) {
      backoff.reset();
    } else {
      ++failed_attempts_;
    }
    on_connection_ended(result.error);
    wait(backoff.next());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  counters_.state = MqttConnectionState::kStopped;
  counters_.connected = false;
}

MqttPublisher::Impl::AttemptResult MqttPublisher::Impl::attempt() {
  std::string password;
  if (!checked.options.password_file.empty()) {
    try {
      password = read_password_file(checked.options.password_file);
    } catch (const std::exception& e) {
      return {e.what(), false};
    }
  }
  MqttConnection connection(checked, std::move(password));
  if (!connection.start()) return {connection.error(), false};
  const auto deadline = Clock::now() + checked.options.connect_timeout;
  bool announced = false;
  bool more = false;
  while (!stop_requested_) {
    if (connection.connected()) {
      if (!announced) {
        announced = true;
        on_connected();
      }
      more = send_ready(connection);
    } else {
      const auto left = deadline - Clock::now();
      if (left <= Clock::duration::zero()) {
        return {"no answer from the broker " + broker + " within connect_timeout (" +
                    std::to_string(checked.options.connect_timeout.count()) +
                    " ms): is the host reachable and is that port an MQTT listener?",
                false};
      }
      more = false;
    }
    auto timeout =
        more ? std::chrono::milliseconds(0)
        : connection.connected()
            ? kIdlePoll
            : std::min(kConnectingPoll,
                       std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()));
    const bool alive = connection.service(wakeup_.fd(), timeout);
    wakeup_.consume();
    // PUBACKs read just before a connection broke still count.
    acknowledge(connection.take_acknowledged());
    if (!alive) return {connection.error(), connection.was_connected()};
  }
  connection.disconnect();
  return {"", connection.was_connected()};
}

void MqttPublisher::Impl::on_connected() {
  size_t waiting = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    counters_.state = MqttConnectionState::kConnected;
    counters_.connected = true;
    ++counters_.connections;
    waiting = outbox_.messages();
  }
  const std::string after =
      failed_attempts_ ? " after " + std::to_string(failed_attempts_) + " failed attempts" : "";
  if (!ever_connected_) {
    spdlog::info("MQTT publisher connected to {}{}", broker, after);
  } else {
    spdlog::info("MQTT publisher connected to {} again{}; sending the {} buffered messages", broker,
                 after, waiting);
  }
  ever_connected_ = true;
  failed_attempts_ = 0;
  last_logged_error_.clear();  // the next problem is news again
}

bool MqttPublisher::Impl::send_ready(MqttConnection& connection) {
  const size_t window = checked.options.max_inflight;
  for (int i = 0; i < kSendBatch; ++i) {
    if (!connection.ready_to_send()) return false;
    std::optional<OutboxItem> item;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      item = outbox_.next_unsent(window);
    }
    if (!item) return false;
    const OutboxMessage& m = *item->message;
    int mid = 0, rc = 0;
    // No lock while libmosquitto writes: publish() callers never wait for the socket.
    const auto result = connection.publish(m.topic, m.payload, m.qos, &mid, &rc);
    if (result == MqttConnection::SendResult::kConnectionEnded) return false;
    std::string refused;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (result == MqttConnection::SendResult::kSent) {
        ++counters_.sent;
        if (item->resend) ++counters_.resent;
        if (outbox_.mark_sent(item->seq, mid) && m.qos == 0) ++counters_.delivered;
      } else if (outbox_.discard(item->seq)) {
        ++counters_.dropped_invalid;
        refused = mosquitto_strerror(rc);
      }
    }
    if (!refused.empty())
      spdlog::error(
          "MQTT publisher: a message to topic '{}' ({} bytes) cannot be sent ({}) and "
          "was dropped",
          m.topic, m.payload.size(), refused);
    notify_if_empty();
  }
  return true;
}

void MqttPublisher::Impl::acknowledge(const std::vector<int>& mids) {
  if (mids.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int mid : mids) {
      if (outbox_.acknowledge(mid)) {
        ++counters_.acknowledged;
        ++counters_.delivered;
      }
    }
  }
  notify_if_empty();
}

void MqttPublisher::Impl::notify_if_empty() {
  bool empty = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    empty = outbox_.empty();
    if (empty) dropping_logged_ = false;  // the next overflow is news again
  }
  if (empty) emptied_.notify_all();
}

void MqttPublisher::Impl::on_connection_ended(const std::string& error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    outbox_.restart();  // whatever was not acknowledged goes again, in order, next time
    counters_.state = MqttConnectionState::kDisconnected;
    counters_.connected = false;
    counters_.last_error = error;
  }
  if (error != last_logged_error_) {
    spdlog::warn("MQTT publisher: {}; retrying with backoff (up to {} ms between attempts)", error,
                 checked.options.reconnect.max.count());
    last_logged_error_ = error;
  } else {
    spdlog::debug("MQTT publisher: {} (again)", error);
  }
}

void MqttPublisher::Impl::wait(std::chrono::milliseconds delay) {
  const auto until = Clock::now() + delay;
  while (!stop_requested_) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now());
    if (left.count() <= 0) return;
    pollfd fd{wakeup_.fd(), POLLIN, 0};
    ::poll(&fd, 1, static_cast<int>(left.count()));
    wakeup_.consume();  // new messages wait for the next connection
  }
}

void MqttPublisher::check(const MqttPublisherOptions& options) {
  mqtt_detail::check_options(options);
}

MqttPublisher::MqttPublisher(MqttPublisherOptions options)
    : impl_(std::make_unique<Impl>(check_options(std::move(options)))) {}

MqttPublisher::~MqttPublisher() = default;

bool MqttPublisher::publish(std::string topic, std::string payload) {
  return impl_->publish(std::move(topic), std::move(payload), impl_->checked.options.qos);
}

bool MqttPublisher::publish(std::string topic, std::string payload, int qos) {
  return impl_->publish(std::move(topic), std::move(payload), qos);
}

bool MqttPublisher::flush(std::chrono::milliseconds timeout) {
  return impl_->flush(timeout);
}

void MqttPublisher::stop() {
  impl_->stop();
}

MqttPublisherStats MqttPublisher::stats() const {
  return impl_->stats();
}

const std::string& MqttPublisher::broker() const {
  return impl_->broker;
}

const std::string& MqttPublisher::client_id() const {
  return impl_->checked.options.client_id;
}

}  // namespace yolo
