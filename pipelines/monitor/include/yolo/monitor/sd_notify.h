// systemd's readiness protocol (sd_notify(3)) without libsystemd: a datagram with "KEY=value"
// lines sent to the unix socket named by $NOTIFY_SOCKET ("@name" = abstract namespace). Outside
// systemd (no NOTIFY_SOCKET) every call is a cheap no-op, so the service runs the same from a
// terminal.
//
//   auto notifier = yolo::monitor::SystemdNotifier::from_environment();
//   notifier.ready();                                     // Type=notify: startup finished
//   if (auto period = notifier.watchdog_period()) ...     // send watchdog() at least this often
//   notifier.status("3 streams running");
//   notifier.stopping();                                  // on SIGTERM, before draining
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace yolo::monitor {

class SystemdNotifier {
 public:
  // Reads NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID once.
  static SystemdNotifier from_environment();
  // An explicit socket path (tests); empty = disabled.
  explicit SystemdNotifier(std::string socket_path,
                           std::optional<std::chrono::microseconds> watchdog_usec = std::nullopt);

  bool enabled() const { return !socket_path_.empty(); }

  // Each returns false when disabled or when sending failed (logged once as a warning; the
  // service keeps running: notifications are advisory).
  bool ready() const { return send("READY=1"); }
  bool watchdog() const { return send("WATCHDOG=1"); }
  bool stopping() const { return send("STOPPING=1"); }
  bool reloading() const { return send("RELOADING=1"); }
  bool status(const std::string& text) const;  // one line; newlines become spaces
  bool send(const std::string& message) const;

  // Half of WatchdogSec= (the period systemd's documentation recommends for WATCHDOG=1), when
  // the watchdog is enabled for this process; nullopt otherwise.
  std::optional<std::chrono::microseconds> watchdog_period() const;

 private:
  std::string socket_path_;
  std::optional<std::chrono::microseconds> watchdog_usec_;
  // Shared by copies, so that a failing socket is reported once per notifier, not per message.
  std::shared_ptr<std::atomic<bool>> warned_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace yolo::monitor
