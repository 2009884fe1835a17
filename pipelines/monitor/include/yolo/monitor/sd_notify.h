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
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

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

// Sends WATCHDOG=1 every watchdog_period() from its own thread while `healthy()` says so, from
// construction until destruction. A process whose main loop is wedged should stop being
// reported healthy, so that systemd restarts it: pass a check of the service's own progress
// (e.g. the HTTP server answering, streams being supervised). Does nothing when the notifier
// has no watchdog.
class WatchdogPinger {
 public:
  explicit WatchdogPinger(SystemdNotifier notifier, std::function<bool()> healthy = {});
  ~WatchdogPinger();  // stops promptly (does not wait out a period)
  WatchdogPinger(const WatchdogPinger&) = delete;
  WatchdogPinger& operator=(const WatchdogPinger&) = delete;

  bool running() const { return thread_.joinable(); }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;  // last: started once everything it uses exists
};

}  // namespace yolo::monitor
