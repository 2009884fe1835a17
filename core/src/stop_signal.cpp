#include "yolo/core/stop_signal.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace yolo {
namespace {

// The write end of the active watcher's pipe. The one process-wide variable here: a signal
// handler receives no context, so this is the only way for it to reach the watcher.
std::atomic<int> g_signal_pipe{-1};
struct sigaction g_previous_int, g_previous_term, g_previous_hup;

void on_stop_signal(int sig) {
  const int saved_errno = errno;
  const int fd = g_signal_pipe.load();
  if (fd >= 0) {
    const unsigned char byte = static_cast<unsigned char>(sig);
    [[maybe_unused]] const ssize_t n = ::write(fd, &byte, 1);
  }
  errno = saved_errno;
}

}  // namespace

StopSignalWatcher::StopSignalWatcher(std::function<void(int)> on_signal, bool exit_on_second,
                                     bool watch_hangup)
    : on_signal_(std::move(on_signal)),
      exit_on_second_(exit_on_second),
      watch_hangup_(watch_hangup) {
  if (::pipe2(pipe_, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error("cannot create the signal pipe");
  int expected = -1;
  if (!g_signal_pipe.compare_exchange_strong(expected, pipe_[1])) {
    ::close(pipe_[0]);
    ::close(pipe_[1]);
    throw std::logic_error("only one StopSignalWatcher may be active");
  }
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &sa, &g_previous_int);
  ::sigaction(SIGTERM, &sa, &g_previous_term);
  if (watch_hangup_) ::sigaction(SIGHUP, &sa, &g_previous_hup);
  thread_ = std::thread([this] {
    bool seen = false;
    for (;;) {
      pollfd p{pipe_[0], POLLIN, 0};
      if (::poll(&p, 1, -1) < 0 && errno != EINTR) return;
      unsigned char byte = 0;
      const ssize_t n = ::read(pipe_[0], &byte, 1);
      if (n == 0) return;  // write end closed: the watcher is being destroyed
      if (n < 0) continue;
      if (byte == 0) return;  // the destructor's wake-up
      if (byte != SIGHUP) {
        if (seen && exit_on_second_) std::_Exit(128 + byte);  // second stop: the user insists
        seen = true;
      }
      on_signal_(byte);
    }
  });
}

StopSignalWatcher::~StopSignalWatcher() {
  ::sigaction(SIGINT, &g_previous_int, nullptr);
  ::sigaction(SIGTERM, &g_previous_term, nullptr);
  if (watch_hangup_) ::sigaction(SIGHUP, &g_previous_hup, nullptr);
  g_signal_pipe.store(-1);
  const unsigned char stop = 0;
  [[maybe_unused]] const ssize_t n = ::write(pipe_[1], &stop, 1);
  thread_.join();
  ::close(pipe_[0]);
  ::close(pipe_[1]);
}

void ignore_write_signals() {
  struct sigaction sa {};
  sa.sa_handler = SIG_IGN;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGXFSZ, &sa, nullptr);
  ::sigaction(SIGPIPE, &sa, nullptr);
}

}  // namespace yolo
