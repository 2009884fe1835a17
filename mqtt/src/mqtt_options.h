// The publisher's options checked once, with what follows from them (broker address, client
// id). Every problem is an exception naming the option and what to do; see mqtt_publisher.h.
#pragma once

#include <string>

#include "mqtt_url.h"
#include "yolo/mqtt/mqtt_publisher.h"

namespace yolo::mqtt_detail {

struct CheckedOptions {
  MqttPublisherOptions options;  // as given, client_id filled in
  BrokerAddress broker;
};

CheckedOptions check_options(MqttPublisherOptions options);

// The password or token in `path`, without trailing line breaks. Throws yolo::UsageError naming
// the file (never its content) when it is missing, unreadable or empty.
std::string read_password_file(const std::string& path);

// "yolo-edge-<hostname>-<pid>": unique per box and process, readable in the broker's log.
std::string default_client_id();

// Throws std::invalid_argument unless `qos` is 0 or 1.
void check_qos(int qos, const char* what);

}  // namespace yolo::mqtt_detail
