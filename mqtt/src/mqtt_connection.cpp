#include "mqtt_connection.h"

#include <mosquitto.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "mqtt_errors.h"
#include "yolo/core/log.h"

namespace yolo::mqtt_detail {

namespace {

// The system's CA directory for mqtts:// without tls.ca_file. libmosquitto wants a CA file or
// directory before it accepts a client certificate; the OS store option alone is not enough.
constexpr const char* kSystemCaPath = "/etc/ssl/certs";

// mosquitto_lib_init() sets up libmosquitto's process-wide state (OpenSSL, its random source)
// and is not thread-safe: a function-local static runs it exactly once, from whichever thread
// comes first, with no state of ours behind it. It is never undone: mosquitto_lib_cleanup() at
// exit would tear OpenSSL down under other users in the process.
void init_library_once() {
  static const int rc = mosquitto_lib_init();
  (void)rc;  // it only fails on Windows (sockets)
}

// OpenSSL asks for a key passphrase on the terminal unless given a callback: a service must
// never wait for one, so an encrypted key simply fails to load.
int no_key_passphrase(char*, int, int, void*) {
  return 0;
}

const char* or_null(const std::string& s) {
  return s.empty() ? nullptr : s.c_str();
}

bool is_message_error(int rc) {
  return rc == MOSQ_ERR_INVAL || rc == MOSQ_ERR_PAYLOAD_SIZE || rc == MOSQ_ERR_MALFORMED_UTF8 ||
         rc == MOSQ_ERR_OVERSIZE_PACKET || rc == MOSQ_ERR_QOS_NOT_SUPPORTED;
}

}  // namespace

MqttConnection::MqttConnection(const CheckedOptions& checked, std::string password)
    : checked_(checked), password_(std::move(password)), client_(nullptr, mosquitto_destroy) {}

MqttConnection::~MqttConnection() = default;

bool MqttConnection::start() {
  init_library_once();
  const MqttPublisherOptions& o = checked_.options;
  client_.reset(mosquitto_new(o.client_id.c_str(), /*clean_session=*/true, this));
  if (!client_) return end_with("cannot create an MQTT client (out of memory)");
  if (!configure()) return false;
  const int rc =
      mosquitto_connect_async(client_.get(), checked_.broker.host.c_str(), checked_.broker.port,
                              static_cast<int>(o.keepalive.count()));
  const int error_number = errno;
  if (rc != MOSQ_ERR_SUCCESS) return end(rc, error_number);
  return true;
}

bool MqttConnection::configure() {
  const MqttPublisherOptions& o = checked_.options;
  mosquitto* c = client_.get();
  mosquitto_connect_callback_set(c, on_connect);
  mosquitto_disconnect_callback_set(c, on_disconnect);
  mosquitto_publish_callback_set(c, on_publish);
  mosquitto_log_callback_set(c, on_log);
  mosquitto_int_option(c, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311);
  // Small messages leave at once instead of waiting for the previous one's ACK (Nagle).
  mosquitto_int_option(c, MOSQ_OPT_TCP_NODELAY, 1);
  // As many in flight in the library as the outbox hands out, so it never queues on its own.
  mosquitto_max_inflight_messages_set(c, static_cast<unsigned>(o.max_inflight));
  if (!o.username.empty()) {
    const int rc = mosquitto_username_pw_set(c, o.username.c_str(), or_null(password_));
    if (rc != MOSQ_ERR_SUCCESS)
      return end_with(std::string("cannot use the username: ") + mosquitto_strerror(rc));
  }
  if (checked_.broker.tls) {
    const MqttTlsOptions& tls = o.tls;
    if (tls.ca_file.empty()) mosquitto_int_option(c, MOSQ_OPT_TLS_USE_OS_CERTS, 1);
    const int rc =
        mosquitto_tls_set(c, or_null(tls.ca_file), tls.ca_file.empty() ? kSystemCaPath : nullptr,
                          or_null(tls.cert_file), or_null(tls.key_file), no_key_passphrase);
    if (rc != MOSQ_ERR_SUCCESS)
      return end_with(std::string("cannot use the TLS files (tls.ca_file, tls.cert_file, "
                                  "tls.key_file): ") +
                      mosquitto_strerror(rc) + "; check that they exist and are readable");
  }
  return true;
}

bool MqttConnection::service(int wake_fd, std::chrono::milliseconds timeout) {
  if (ended_) return false;
  mosquitto* c = client_.get();
  const int sock = mosquitto_socket(c);
  if (sock < 0) return end(MOSQ_ERR_NO_CONN, 0);
  pollfd fds[2] = {{sock, static_cast<short>(POLLIN | (mosquitto_want_write(c) ? POLLOUT : 0)), 0},
                   {wake_fd, POLLIN, 0}};
  const int ready = ::poll(fds, 2, static_cast<int>(timeout.count()));
  if (ready < 0 && errno != EINTR) return end(MOSQ_ERR_ERRNO, errno);
  const short events = ready > 0 ? fds[0].revents : 0;

  // Reading also moves a TLS handshake on, whichever way the socket became ready, so before the
  // CONNACK it runs on every pass (harmless when there is nothing to read).
  if (events != 0 || !connected_) {
    const int rc = mosquitto_loop_read(c, 1);
    const int error_number = disconnect_seen_ ? disconnect_errno_ : errno;
    if (rc != MOSQ_ERR_SUCCESS) return end(rc, error_number);
  }
  if (disconnect_seen_ || mosquitto_socket(c) < 0) return end(disconnect_rc_, disconnect_errno_);
  if (events & POLLOUT) {
    const int rc = mosquitto_loop_write(c, 1);
    const int error_number = disconnect_seen_ ? disconnect_errno_ : errno;
    if (rc != MOSQ_ERR_SUCCESS) return end(rc, error_number);
  }
  // A socket in error that libmosquitto did not close: during a TLS handshake it reports a
  // closed peer as "try again", which would spin here until connect_timeout.
  if ((events & (POLLERR | POLLHUP)) && !connected_ && mosquitto_socket(c) >= 0) {
    int so_error = 0;
    socklen_t len = sizeof so_error;
    ::getsockopt(mosquitto_socket(c), SOL_SOCKET, SO_ERROR, &so_error, &len);
    if (so_error != 0) return end(MOSQ_ERR_ERRNO, so_error);
    return end(MOSQ_ERR_CONN_LOST, 0);
  }
  const int rc = mosquitto_loop_misc(c);  // keepalive: PINGREQ, or give up on a silent broker
  if (rc != MOSQ_ERR_SUCCESS) return end(rc, errno);
  return !ended_;
}

bool MqttConnection::ready_to_send() const {
  return connected() && !mosquitto_want_write(client_.get());
}

MqttConnection::SendResult MqttConnection::publish(const std::string& topic,
                                                   const std::string& payload, int qos, int* mid,
                                                   int* rc) {
  *rc = mosquitto_publish(client_.get(), mid, topic.c_str(), static_cast<int>(payload.size()),
                          payload.data(), qos, /*retain=*/false);
  const int error_number = errno;
  if (*rc == MOSQ_ERR_SUCCESS) return SendResult::kSent;
  if (is_message_error(*rc)) return SendResult::kMessageRefused;
  end(*rc, error_number);
  return SendResult::kConnectionEnded;
}

std::vector<int> MqttConnection::take_acknowledged() {
  std::vector<int> out;
  out.swap(acknowledged_);
  return out;
}

void MqttConnection::disconnect() {
  if (connected()) mosquitto_disconnect(client_.get());
}

bool MqttConnection::end(int rc, int error_number) {
  if (ended_) return false;
  const std::string broker = checked_.broker.display();
  // A refused CONNACK also ends with a connection error from libmosquitto: the refusal is what
  // a person needs to read.
  if (refused_code_ != 0) return end_with(describe_connack_refusal(refused_code_, broker));
  return end_with(describe_connection_error(rc, error_number, tls_detail_, broker,
                                            checked_.broker.host, connected_));
}

bool MqttConnection::end_with(std::string error) {
  ended_ = true;
  error_ = std::move(error);
  return false;
}

void MqttConnection::on_connect(mosquitto*, void* self, int code) {
  auto* me = static_cast<MqttConnection*>(self);
  if (code == 0) {
    me->connected_ = true;
  } else {
    me->refused_code_ = code;
  }
}

void MqttConnection::on_disconnect(mosquitto*, void* self, int rc) {
  auto* me = static_cast<MqttConnection*>(self);
  me->disconnect_errno_ = errno;  // first: the callback is called right after the failing call
  me->disconnect_seen_ = true;
  me->disconnect_rc_ = rc;
}

void MqttConnection::on_publish(mosquitto*, void* self, int mid) {
  // QoS 1: the PUBACK arrived. QoS 0: the packet was written (its id matches nothing in flight).
  static_cast<MqttConnection*>(self)->acknowledged_.push_back(mid);
}

void MqttConnection::on_log(mosquitto*, void* self, int level, const char* text) {
  if (!(level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING)) || !text) return;
  auto* me = static_cast<MqttConnection*>(self);
  std::string line = text;
  // "OpenSSL Error[0]: error:0A000086:SSL routines::certificate verify failed"
  const std::string openssl = "OpenSSL Error[";
  if (line.rfind(openssl, 0) == 0) {
    const size_t colon = line.find("]: ");
    if (colon != std::string::npos) line = line.substr(colon + 3);
    if (me->tls_detail_.empty()) me->tls_detail_ = line;
  }
  spdlog::debug("libmosquitto: {}", line);
}

}  // namespace yolo::mqtt_detail
