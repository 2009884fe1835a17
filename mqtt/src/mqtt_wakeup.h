// Wakes the publisher's thread out of poll(): new messages to send, or stop. An eventfd that is
// written at most once between two consume() calls, so a burst of publish() calls costs one
// system call, not one each.
#pragma once

#include <atomic>

namespace yolo::mqtt_detail {

class Wakeup {
 public:
  // Throws std::system_error when the system has no file descriptors left.
  Wakeup();
  ~Wakeup();
  Wakeup(const Wakeup&) = delete;
  Wakeup& operator=(const Wakeup&) = delete;

  // Any thread: makes fd() readable unless it already is.
  void notify();
  // The waiting thread, before it looks at what it was woken for: fd() is no longer readable
  // and the next notify() writes again.
  void consume();
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::atomic<bool> pending_{false};
};

}  // namespace yolo::mqtt_detail
