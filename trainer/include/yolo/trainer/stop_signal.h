// Ctrl-C / SIGTERM handling for long runs (train, predict): the first signal asks the run to stop
// after the current step (so that last.pt is saved, videos are finished and nothing is lost); a
// second one ends the process at once.
//
// The signal handler only writes the signal number to a pipe (async-signal-safe); a watcher
// thread reads it and runs the callback, so no async-signal-unsafe code runs in the handler.
// This works whichever thread the signal lands on: libraries start threads that no signal mask
// set in main can cover (OpenBLAS starts its pool while the program loads, LibTorch's thread pool
// starts in set_num_threads), so blocking the signals and waiting for them with sigwait would
// leave those threads to receive them and end the process. A signal that was ignored when the
// watcher started (a background job of a non-interactive shell ignores SIGINT) stays ignored.
// One watcher at a time: the handler's pipe is process-wide.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <thread>

namespace yolo {

class StopSignalWatcher {
 public:
  // on_first_signal runs on the watcher thread.
  explicit StopSignalWatcher(std::function<void(int signal)> on_first_signal);
  ~StopSignalWatcher();  // restores the previous handlers
  StopSignalWatcher(const StopSignalWatcher&) = delete;
  StopSignalWatcher& operator=(const StopSignalWatcher&) = delete;

 private:
  struct PreviousHandlers;  // sigaction state to restore (stop_signal.cpp)

  std::function<void(int)> on_signal_;
  int pipe_[2] = {-1, -1};  // read end: watcher thread; write end: the signal handler
  std::unique_ptr<PreviousHandlers> previous_;
  std::atomic<bool> quit_{false};
  std::thread thread_;
};

}  // namespace yolo
