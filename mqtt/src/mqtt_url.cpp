#include "mqtt_url.h"

#include <stdexcept>

namespace yolo::mqtt_detail {

namespace {

constexpr const char* kAllowed =
    "use mqtt://host[:port] (default port 1883) or mqtts://host[:port] (TLS, default port 8883)";

[[noreturn]] void refuse(const std::string& shown_url, const std::string& why) {
  throw std::invalid_argument("MQTT url '" + shown_url + "': " + why + "; " + kAllowed);
}

// The url with everything before an '@' in the authority replaced, so that a message about a
// url that carries credentials does not repeat them.
std::string masked(const std::string& url, size_t authority_begin, size_t at) {
  return url.substr(0, authority_begin) + "***" + url.substr(at);
}

int parse_port(const std::string& text, const std::string& url) {
  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos)
    refuse(url, "the port '" + text + "' is not a number from 1 to 65535");
  const int port = std::stoi(text);
  if (port < 1 || port > 65535) refuse(url, "the port " + text + " is not from 1 to 65535");
  return port;
}

}  // namespace

std::string BrokerAddress::display() const {
  const bool v6 = host.find(':') != std::string::npos;
  return std::string(tls ? "mqtts://" : "mqtt://") + (v6 ? "[" + host + "]" : host) + ":" +
         std::to_string(port);
}

BrokerAddress parse_broker_url(const std::string& url) {
  const size_t scheme_end = url.find("://");
  if (url.empty()) refuse(url, "the url is empty");
  if (scheme_end == std::string::npos) refuse(url, "no scheme");
  const std::string scheme = url.substr(0, scheme_end);
  const size_t authority_begin = scheme_end + 3;
  const size_t authority_end = url.find_first_of("/?#", authority_begin);
  const std::string authority = url.substr(authority_begin, authority_end - authority_begin);

  // Checked before anything else is said about the url, so no message ever shows credentials.
  const size_t at = authority.rfind('@');
  if (at != std::string::npos) {
    throw std::invalid_argument(
        "MQTT url '" + masked(url, authority_begin, authority_begin + at) +
        "' carries credentials: remove 'user:password@' from the url and set the username and "
        "password_file options instead (a password in a url ends up in logs and configuration "
        "dumps)");
  }

  BrokerAddress address;
  if (scheme == "mqtt") {
    address.tls = false;
  } else if (scheme == "mqtts") {
    address.tls = true;
  } else {
    refuse(url, "the scheme '" + scheme + "' is not supported");
  }
  if (authority_end != std::string::npos && url.substr(authority_end) != "/")
    refuse(url, "MQTT urls take no path, query or fragment ('" + url.substr(authority_end) + "')");

  std::string port_text;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string::npos) refuse(url, "the IPv6 address has no closing ']'");
    address.host = authority.substr(1, close - 1);
    const std::string rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') refuse(url, "unexpected '" + rest + "' after the IPv6 address");
      port_text = rest.substr(1);
      if (port_text.empty()) refuse(url, "the port is empty");
    }
  } else {
    const size_t colon = authority.find(':');
    address.host = authority.substr(0, colon);
    if (colon != std::string::npos) {
      port_text = authority.substr(colon + 1);
      if (port_text.empty()) refuse(url, "the port is empty");
    }
  }
  if (address.host.empty()) refuse(url, "no host");
  address.port = port_text.empty() ? (address.tls ? kDefaultMqttsPort : kDefaultMqttPort)
                                   : parse_port(port_text, url);
  return address;
}

}  // namespace yolo::mqtt_detail
