// A real mosquitto broker for tests: a child process listening on 127.0.0.1 at a free port, with
// a generated configuration (optional TLS, password file, persistence) in a folder of the test.
// freeze() makes it hang (SIGSTOP: connections stay open, nothing is read or answered), kill()
// is a crash (SIGKILL: nothing saved, connections reset), stop() a clean shutdown
// (SIGTERM: a persistent broker saves its sessions), start() again serves on the same port.
// The destructor kills it.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "free_port.h"

extern char** environ;

namespace yolo::testing {

// The mosquitto executable ("" when it is not installed). Debian puts it in /usr/sbin, which is
// not on every user's PATH.
inline std::string mosquitto_binary() {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string dir; std::getline(ss, dir, ':');) dirs.push_back(dir);
  }
  dirs.push_back("/usr/sbin");
  dirs.push_back("/usr/local/sbin");
  for (const auto& dir : dirs) {
    const std::filesystem::path p = std::filesystem::path(dir) / "mosquitto";
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "";
}

struct MosquittoConfig {
  // TLS on the main listener when cert_file is set (PEM files).
  std::string ca_file, cert_file, key_file;
  // Anonymous clients refused and users checked against this file (mosquitto_passwd) when set.
  std::string password_file;
  // Sessions and their queued messages kept on disk across a clean stop().
  bool persistence = false;
  // A second, plain listener (for a test subscriber while the main one speaks TLS).
  bool plain_listener = false;
};

class MosquittoTestBroker {
 public:
  MosquittoTestBroker(std::filesystem::path dir, MosquittoConfig config = {})
      : dir_(std::move(dir)), config_(std::move(config)), port_(free_port()) {
    if (config_.plain_listener) plain_port_ = free_port();
    std::filesystem::create_directories(dir_);
    write_config();
  }
  ~MosquittoTestBroker() { kill(); }
  MosquittoTestBroker(const MosquittoTestBroker&) = delete;
  MosquittoTestBroker& operator=(const MosquittoTestBroker&) = delete;

  // Starts the broker and waits until it accepts connections. Throws with its log on failure.
  void start() {
    if (pid_ > 0) return;
    const std::string binary = mosquitto_binary();
    if (binary.empty()) throw std::runtime_error("mosquitto is not installed");
    const std::string conf = (dir_ / "mosquitto.conf").string();
    const std::string out = (dir_ / "mosquitto.out").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<std::string> args = {binary, "-c", conf};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = posix_spawn(&pid_, binary.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      pid_ = -1;
      throw std::runtime_error("cannot start mosquitto");
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!accepts(port_) || (plain_port_ > 0 && !accepts(plain_port_))) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("mosquitto exited at start:\n" + log());
      }
      if (std::chrono::steady_clock::now() > deadline) {
        kill();
        throw std::runtime_error("mosquitto does not accept connections:\n" + log());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  // A hang: SIGSTOP. Only kill() or stop() ends it.
  void freeze() {
    if (pid_ > 0) ::kill(pid_, SIGSTOP);
  }
  // A crash: SIGKILL, reaped.
  void kill() { end(SIGKILL); }
  // A clean shutdown: SIGTERM (a persistent broker writes its database), reaped.
  void stop() { end(SIGTERM); }

  int port() const { return port_; }
  int plain_port() const { return plain_port_; }
  std::string url() const {
    return std::string(config_.cert_file.empty() ? "mqtt" : "mqtts") +
           "://127.0.0.1:" + std::to_string(port_);
  }
  std::string log() const {
    std::ifstream in(dir_ / "mosquitto.out");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  void end(int signal) {
    if (pid_ <= 0) return;
    ::kill(pid_, signal);
    ::kill(pid_, SIGCONT);  // a frozen broker must run to act on SIGTERM
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  static bool accepts(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
  }

  void write_config() {
    std::ofstream conf(dir_ / "mosquitto.conf");
    // Root would otherwise make mosquitto switch to the 'mosquitto' user, which cannot write
    // the test's folders.
    if (::getuid() == 0) conf << "user root\n";
    conf << "log_dest stdout\n"
         << "log_type error\nlog_type warning\nlog_type notice\nlog_type information\n"
         << "connection_messages true\n"
         // Every message goes straight to a connected subscriber (no per-client window), and an
         // offline persistent subscriber may have everything a test publishes queued for it.
         << "max_inflight_messages 0\n"
         << "max_queued_messages 100000\n";
    if (config_.persistence) {
      conf << "persistence true\n"
           << "persistence_location " << (dir_ / "").string() << "\n";
    }
    if (config_.password_file.empty()) {
      conf << "allow_anonymous true\n";
    } else {
      conf << "allow_anonymous false\npassword_file " << config_.password_file << "\n";
    }
    conf << "listener " << port_ << " 127.0.0.1\n";
    if (!config_.cert_file.empty()) {
      conf << "cafile " << config_.ca_file << "\ncertfile " << config_.cert_file << "\nkeyfile "
           << config_.key_file << "\n";
    }
    if (plain_port_ > 0) conf << "listener " << plain_port_ << " 127.0.0.1\n";
  }

  std::filesystem::path dir_;
  MosquittoConfig config_;
  int port_ = -1;
  int plain_port_ = -1;
  pid_t pid_ = -1;
};

}  // namespace yolo::testing
