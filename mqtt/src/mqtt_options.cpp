#include "mqtt_options.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "yolo/core/error.h"

namespace yolo::mqtt_detail {

namespace {

// MQTT's largest PUBLISH packet is 256 MiB; a buffer that may hold one larger message could
// never send it.
constexpr size_t kMaxBufferBytes = 256u * 1024 * 1024;

[[noreturn]] void invalid(const std::string& what) {
  throw std::invalid_argument("MQTT publisher: " + what);
}

// A file option that must name a readable file (a folder opens as a stream on Linux, and then
// reads nothing).
void check_readable(const std::string& path, const std::string& option, const std::string& what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UsageError("MQTT publisher: " + option + " '" + path + "' is a folder: " + what);
  std::ifstream in(path);
  if (!in) {
    throw UsageError("MQTT publisher: " + option + " '" + path + "' cannot be read: " + what);
  }
}

// A secret (password, private key) that other users of the machine can read: said once per
// check, as the docs ask for mode 600.
void warn_if_readable_by_others(const std::string& path, const std::string& option) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || (st.st_mode & (S_IRWXG | S_IRWXO)) == 0) return;
  spdlog::warn(
      "MQTT publisher: {} '{}' can be read by other users of this machine (mode {:o}): "
      "chmod 600 it, owned by the service's user",
      option, path, st.st_mode & 0777);
}

}  // namespace

void check_qos(int qos, const char* what) {
  if (qos == 0 || qos == 1) return;
  invalid(std::string(what) + " " + std::to_string(qos) + " is not supported: use 0 (at most " +
          "once) or 1 (at least once, acknowledged by the broker); QoS 2 is not implemented");
}

std::string default_client_id() {
  std::array<char, 256> host{};
  if (::gethostname(host.data(), host.size() - 1) != 0 || host[0] == '\0')
    std::snprintf(host.data(), host.size(), "unknown");
  return "yolo-edge-" + std::string(host.data()) + "-" + std::to_string(::getpid());
}

std::string read_password_file(const std::string& path) {
  check_readable(path, "password_file",
                 "create it with the password or token on one line, readable by this service "
                 "only (chmod 600)");
  std::ifstream in(path, std::ios::binary);
  std::string secret((std::istreambuf_iterator<char>(in)), {});
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
  if (secret.empty()) {
    throw UsageError("MQTT publisher: password_file '" + path +
                     "' is empty: put the password or token on its first line");
  }
  return secret;
}

CheckedOptions check_options(MqttPublisherOptions o) {
  CheckedOptions checked;
  checked.broker = parse_broker_url(o.url);
  if (o.client_id.empty()) o.client_id = default_client_id();
  if (o.client_id.size() > 65535) invalid("client_id is longer than MQTT allows (65535 bytes)");
  check_qos(o.qos, "qos");
  if (o.keepalive.count() < 5 || o.keepalive.count() > 65535)
    invalid("keepalive " + std::to_string(o.keepalive.count()) +
            " s is out of range: use 5 to 65535 seconds");
  if (o.buffer.max_messages < 1) invalid("buffer.max_messages must be at least 1");
  if (o.buffer.max_bytes < 1 || o.buffer.max_bytes > kMaxBufferBytes)
    invalid("buffer.max_bytes " + std::to_string(o.buffer.max_bytes) +
            " is out of range: use 1 byte to 256 MiB");
  if (o.reconnect.min.count() < 1) invalid("reconnect.min must be at least 1 ms");
  if (o.reconnect.max < o.reconnect.min) invalid("reconnect.max must not be below reconnect.min");
  if (o.max_inflight < 1 || o.max_inflight > 65535)
    invalid("max_inflight " + std::to_string(o.max_inflight) + " is out of range: use 1 to 65535");
  if (o.connect_timeout.count() < 1) invalid("connect_timeout must be at least 1 ms");

  if (!o.password_file.empty()) {
    if (o.username.empty())
      invalid(
          "password_file is set but username is empty: MQTT sends a password only with a "
          "user name");
    read_password_file(o.password_file);  // fail now rather than at every connection attempt
    warn_if_readable_by_others(o.password_file, "password_file");
  }

  const bool any_tls_file =
      !o.tls.ca_file.empty() || !o.tls.cert_file.empty() || !o.tls.key_file.empty();
  if (any_tls_file && !checked.broker.tls)
    invalid("tls files are set but the url '" + o.url +
            "' is not mqtts://: use mqtts://host[:port] to connect with TLS");
  if (o.tls.cert_file.empty() != o.tls.key_file.empty())
    invalid(
        "tls.cert_file and tls.key_file go together: set both (client certificate "
        "authentication) or neither");
  if (!o.tls.ca_file.empty())
    check_readable(o.tls.ca_file, "tls.ca_file",
                   "give the PEM file of the CA that signed the broker's certificate, or leave "
                   "it empty to trust the system's CA store");
  if (!o.tls.cert_file.empty())
    check_readable(o.tls.cert_file, "tls.cert_file", "give the client certificate (PEM)");
  if (!o.tls.key_file.empty()) {
    check_readable(o.tls.key_file, "tls.key_file",
                   "give the client certificate's private key (PEM, unencrypted)");
    warn_if_readable_by_others(o.tls.key_file, "tls.key_file");
  }

  checked.options = std::move(o);
  return checked;
}

}  // namespace yolo::mqtt_detail
