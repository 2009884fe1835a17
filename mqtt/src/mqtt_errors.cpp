#include "mqtt_errors.h"

#include <mosquitto.h>
#include <netdb.h>

#include <cerrno>
#include <cstring>

namespace yolo::mqtt_detail {

namespace {

// Closed before the broker ever answered CONNECT: whatever listens there is not an MQTT
// listener that takes this connection.
const char* kClosedBeforeConnack =
    "the server there closed the connection without answering MQTT's CONNECT (is that port an "
    "MQTT listener? 1883 is plain MQTT; a TLS listener such as 8883 needs mqtts://; a web or "
    "websocket server is not an MQTT broker)";

std::string errno_text(int error_number, bool was_connected) {
  switch (error_number) {
    case ECONNREFUSED:
      return "connection refused (is the broker running and listening on that port?)";
    case ECONNRESET:
    case EPIPE:
      return was_connected ? "the broker closed the connection" : kClosedBeforeConnack;
    case ETIMEDOUT:
      return "timed out (is the host reachable?)";
    case EHOSTUNREACH:
    case ENETUNREACH:
      return std::string(std::strerror(error_number)) + " (check the network and the url)";
    case 0:  // libmosquitto read an end of stream: the other side hung up
      return was_connected ? "the broker closed the connection" : kClosedBeforeConnack;
    default:
      return std::strerror(error_number);
  }
}

}  // namespace

std::string describe_connection_error(int rc, int error_number, const std::string& tls_detail,
                                      const std::string& broker, const std::string& host,
                                      bool was_connected) {
  const std::string lost = "connection to the broker " + broker + " lost: ";
  const std::string cannot = "cannot connect to the broker " + broker + ": ";
  const std::string& prefix = was_connected ? lost : cannot;
  switch (rc) {
    case MOSQ_ERR_EAI:
      return "cannot resolve the broker host '" + host + "': " + gai_strerror(error_number) +
             " (check the url and DNS)";
    case MOSQ_ERR_ERRNO:
      return prefix + errno_text(error_number, was_connected);
    case MOSQ_ERR_TLS:
    case MOSQ_ERR_TLS_HANDSHAKE:
      return "TLS with the broker " + broker + " failed" +
             (tls_detail.empty() ? std::string() : ": " + tls_detail) +
             " (check tls.ca_file: it must hold the CA that signed the broker's certificate, "
             "and the certificate must name the host of the url)";
    case MOSQ_ERR_CONN_LOST:
      return prefix + (was_connected ? "the broker closed the connection" : kClosedBeforeConnack);
    case MOSQ_ERR_KEEPALIVE:
      return prefix + "the broker stopped answering (keepalive expired)";
    case MOSQ_ERR_PROTOCOL:
    case MOSQ_ERR_MALFORMED_PACKET:
      if (!was_connected)
        return prefix +
               "what answered is not MQTT (a web server, a websocket listener or another "
               "service on that port?); check the url's port: 1883 is plain MQTT, 8883 "
               "MQTT over TLS (mqtts://)";
      return prefix +
             "protocol error (is this an MQTT 3.1.1 broker, and the port its MQTT "
             "listener rather than a websocket one?)";
    default:
      return prefix + mosquitto_strerror(rc);
  }
}

std::string describe_connack_refusal(int code, const std::string& broker) {
  const std::string prefix = "the broker " + broker + " refused the connection: ";
  switch (code) {
    case 1:
      return prefix + "unacceptable protocol version (the broker does not speak MQTT 3.1.1)";
    case 2:
      return prefix + "client identifier rejected (check client_id)";
    case 3:
      return prefix + "server unavailable (retrying)";
    case 4:
      return prefix + "bad user name or password (check username and password_file)";
    case 5:
      return prefix + "not authorised (check username and password_file)";
    default:
      return prefix + mosquitto_connack_string(code);
  }
}

}  // namespace yolo::mqtt_detail
