// Ctrl-C / SIGTERM handling for long runs and services: the first signal asks the run to stop
// after the current step (so that last.pt is saved, outputs are flushed, nothing is lost); a
// second one ends the process at once. Services may also watch SIGHUP (reload), which never
// counts as a stop.
//
// Libraries start threads before main() (OpenBLAS's pool, for one), so blocking the signals in
// every thread is not possible: the kernel may deliver them to any thread. Instead a handler,
// which may run on any thread, writes the signal number into a pipe (write() is async-signal
// safe) and a watcher thread reads the pipe and runs the callback in normal context.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace yolo {

class StopSignalWatcher {
 public:
  // Installs the handlers for SIGINT and SIGTERM (and SIGHUP with watch_hangup); on_signal runs
  // on the watcher thread. With exit_on_second, a second SIGINT/SIGTERM ends the process at once
  // instead of calling on_signal again. One watcher at a time per process (std::logic_error
  // otherwise).
  explicit StopSignalWatcher(std::function<void(int signal)> on_signal, bool exit_on_second = true,
                             bool watch_hangup = false);
  // Restores the previous handlers.
  ~StopSignalWatcher();
  StopSignalWatcher(const StopSignalWatcher&) = delete;
  StopSignalWatcher& operator=(const StopSignalWatcher&) = delete;

 private:
  std::function<void(int)> on_signal_;
  bool exit_on_second_;
  bool watch_hangup_;
  int pipe_[2] = {-1, -1};
  std::thread thread_;
};

// SIGXFSZ (a file size limit: `ulimit -f`, systemd's LimitFSIZE=) and SIGPIPE (a closed pipe or
// socket) end a process by default in the middle of a write, with no word said and a temporary
// file left behind. Ignored, the write fails with EFBIG or EPIPE instead, and the code that
// wrote says what happened (atomic saves keep the previous file). Every program calls this first
// thing in main(); a library (the GStreamer plugin) leaves its host's signals alone.
void ignore_write_signals();

}  // namespace yolo
