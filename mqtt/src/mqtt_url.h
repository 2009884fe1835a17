// The broker address of an MQTT publisher, from its `url` option: mqtt://host[:port] (plain TCP,
// default port 1883) or mqtts://host[:port] (TLS, default port 8883). IPv6 hosts are written in
// brackets (mqtt://[::1]:1883). Credentials inside the URL are refused: they would end up in
// logs, process listings and configuration dumps; username and password_file carry them instead.
#pragma once

#include <string>

namespace yolo::mqtt_detail {

struct BrokerAddress {
  bool tls = false;
  std::string host;  // without brackets, as libmosquitto's connect wants it
  int port = 0;
  // "mqtt://host:port" for messages and logs (never holds credentials).
  std::string display() const;
};

inline constexpr int kDefaultMqttPort = 1883;
inline constexpr int kDefaultMqttsPort = 8883;

// Throws std::invalid_argument naming the url (with any credentials masked) and what is allowed.
BrokerAddress parse_broker_url(const std::string& url);

}  // namespace yolo::mqtt_detail
