#include "yolo/trainer/stop_signal.h"

#include <pthread.h>
#include <signal.h>

#include <cstdlib>
#include <ctime>

namespace yolo {
namespace {

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

StopSignalWatcher::StopSignalWatcher(std::function<void(int)> on_first_signal)
    : on_signal_(std::move(on_first_signal)) {
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  thread_ = std::thread([this] {
    const sigset_t wait_set = stop_signals();
    bool seen = false;
    while (!quit_) {
      const timespec timeout{0, 200 * 1000 * 1000};  // re-check quit_ 5 times a second
      const int sig = sigtimedwait(&wait_set, nullptr, &timeout);
      if (sig <= 0) continue;
      if (seen) std::_Exit(128 + sig);  // second signal: the user insists
      seen = true;
      on_signal_(sig);
    }
  });
}

StopSignalWatcher::~StopSignalWatcher() {
  quit_ = true;
  thread_.join();
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

}  // namespace yolo
