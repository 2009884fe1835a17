#include "yolo/trainer/stop_signal.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace yolo {
namespace {

// The write end of the active watcher's pipe. A signal handler can reach nothing but globals;
// this is the only state it has, set while a watcher exists and -1 otherwise.
std::atomic<int> g_signal_pipe{-1};

constexpr int kStopSignals[] = {SIGINT, SIGTERM};
constexpr int kPollIntervalMs = 200;  // how often the watcher re-checks that it should quit

void on_stop_signal(int sig) {
  const int fd = g_signal_pipe.load();
  if (fd < 0) return;
  const int saved_errno = errno;  // the interrupted code may be about to read errno
  const auto byte = static_cast<unsigned char>(sig);
  if (write(fd, &byte, 1) < 0) {
    // Pipe full (a burst of signals): the watcher already has one to act on.
  }
  errno = saved_errno;
}

}  // namespace

struct StopSignalWatcher::PreviousHandlers {
  struct sigaction actions[2];
  bool installed[2] = {false, false};
};

StopSignalWatcher::StopSignalWatcher(std::function<void(int)> on_first_signal)
    : on_signal_(std::move(on_first_signal)), previous_(std::make_unique<PreviousHandlers>()) {
  // Non-blocking writes: the handler must never wait.
  if (pipe2(pipe_, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error("cannot create the Ctrl-C pipe: " + std::string(strerror(errno)));
  g_signal_pipe = pipe_[1];
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // interrupted system calls in other threads carry on
  for (int i = 0; i < 2; ++i) {
    struct sigaction& prev = previous_->actions[i];
    sigaction(kStopSignals[i], nullptr, &prev);
    if (prev.sa_handler == SIG_IGN) continue;  // ignored on purpose by whoever started us
    previous_->installed[i] = sigaction(kStopSignals[i], &sa, nullptr) == 0;
  }
  thread_ = std::thread([this] {
    bool seen = false;
    while (!quit_) {
      pollfd p{pipe_[0], POLLIN, 0};
      if (poll(&p, 1, kPollIntervalMs) <= 0) continue;
      unsigned char sig = 0;
      if (read(pipe_[0], &sig, 1) != 1) continue;
      if (seen) std::_Exit(128 + sig);  // second signal: the user insists
      seen = true;
      on_signal_(sig);
    }
  });
}

StopSignalWatcher::~StopSignalWatcher() {
  quit_ = true;
  thread_.join();
  for (int i = 0; i < 2; ++i)
    if (previous_->installed[i]) sigaction(kStopSignals[i], &previous_->actions[i], nullptr);
  g_signal_pipe = -1;
  close(pipe_[0]);
  close(pipe_[1]);
}

}  // namespace yolo
