// Human sentences for what libmosquitto reports, for the publisher's last_error and its log.
// They say what happened and what to check. None of them contains a credential: they are built
// from return codes, errno, OpenSSL's error text and the broker address only.
#pragma once

#include <string>

namespace yolo::mqtt_detail {

// A connection attempt or an established connection failed with libmosquitto return code `rc`
// (errno `error_number` where rc is MOSQ_ERR_ERRNO, the getaddrinfo code where MOSQ_ERR_EAI).
// `tls_detail` is OpenSSL's complaint when there was one. `broker` is the address for display;
// `host` the name that was looked up.
std::string describe_connection_error(int rc, int error_number, const std::string& tls_detail,
                                      const std::string& broker, const std::string& host,
                                      bool was_connected);

// The broker answered CONNECT with a refusal (MQTT 3.1.1 CONNACK return code 1..5).
std::string describe_connack_refusal(int code, const std::string& broker);

}  // namespace yolo::mqtt_detail
