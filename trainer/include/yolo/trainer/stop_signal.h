// Ctrl-C / SIGTERM handling for long runs: the first signal asks the run to stop after the
// current step (so that last.pt is saved and nothing is lost); a second one ends the process at
// once. Signals are blocked in every thread and received by one watcher thread with sigwait, so
// no async-signal-unsafe code and no global flag are involved.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace yolo {

class StopSignalWatcher {
 public:
  // Must be constructed before other threads start (they inherit the blocked signal mask).
  // on_first_signal runs on the watcher thread.
  explicit StopSignalWatcher(std::function<void(int signal)> on_first_signal);
  ~StopSignalWatcher();
  StopSignalWatcher(const StopSignalWatcher&) = delete;
  StopSignalWatcher& operator=(const StopSignalWatcher&) = delete;

 private:
  std::function<void(int)> on_signal_;
  std::atomic<bool> quit_{false};
  std::thread thread_;
};

}  // namespace yolo
