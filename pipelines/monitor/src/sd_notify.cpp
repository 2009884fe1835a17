#include "yolo/monitor/sd_notify.h"

#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace yolo::monitor {

SystemdNotifier SystemdNotifier::from_environment() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  const char* usec = std::getenv("WATCHDOG_USEC");
  const char* pid = std::getenv("WATCHDOG_PID");
  std::optional<std::chrono::microseconds> watchdog;
  // WATCHDOG_PID names the process meant to ping; a child that inherited it must not.
  const bool for_us = !pid || std::strtol(pid, nullptr, 10) == static_cast<long>(::getpid());
  if (usec && for_us) {
    const long long v = std::strtoll(usec, nullptr, 10);
    if (v > 0) watchdog = std::chrono::microseconds(v);
  }
  return SystemdNotifier(socket ? socket : "", watchdog);
}

SystemdNotifier::SystemdNotifier(std::string socket_path,
                                 std::optional<std::chrono::microseconds> watchdog_usec)
    : socket_path_(std::move(socket_path)), watchdog_usec_(watchdog_usec) {}

bool SystemdNotifier::status(const std::string& text) const {
  std::string line = text;
  std::replace(line.begin(), line.end(), '\n', ' ');
  return send("STATUS=" + line);
}

bool SystemdNotifier::send(const std::string& message) const {
  if (!enabled()) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path_.size() >= sizeof addr.sun_path ||
      (socket_path_[0] != '/' && socket_path_[0] != '@')) {
    spdlog::warn("sd_notify: NOTIFY_SOCKET '{}' is not an absolute or abstract socket path",
                 socket_path_);
    return false;
  }
  std::memcpy(addr.sun_path, socket_path_.data(), socket_path_.size());
  if (addr.sun_path[0] == '@') addr.sun_path[0] = '\0';  // abstract namespace
  const socklen_t length =
      static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + socket_path_.size());
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const ssize_t sent = ::sendto(fd, message.data(), message.size(), MSG_NOSIGNAL,
                                reinterpret_cast<const sockaddr*>(&addr), length);
  const int error = errno;
  ::close(fd);
  if (sent != static_cast<ssize_t>(message.size())) {
    // Warned once: a watchdog ping every few seconds must not flood the journal.
    if (!warned_->exchange(true)) {
      spdlog::warn("sd_notify: sending to {} failed: {}", socket_path_, std::strerror(error));
    }
    return false;
  }
  return true;
}

std::optional<std::chrono::microseconds> SystemdNotifier::watchdog_period() const {
  if (!watchdog_usec_) return std::nullopt;
  return *watchdog_usec_ / 2;
}

WatchdogPinger::WatchdogPinger(SystemdNotifier notifier, std::function<bool()> healthy) {
  const auto period = notifier.watchdog_period();
  if (!notifier.enabled() || !period) return;
  thread_ = std::thread(
      [this, notifier = std::move(notifier), healthy = std::move(healthy), period = *period] {
        std::unique_lock<std::mutex> lock(mutex_);
        while (!stop_) {
          lock.unlock();
          if (!healthy || healthy()) {
            notifier.watchdog();
          } else {
            spdlog::warn("watchdog: the service reports itself unhealthy; not pinging systemd");
          }
          lock.lock();
          wake_.wait_for(lock, period, [this] { return stop_; });
        }
      });
}

WatchdogPinger::~WatchdogPinger() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace yolo::monitor
