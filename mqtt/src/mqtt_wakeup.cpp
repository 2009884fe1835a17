#include "mqtt_wakeup.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <system_error>

namespace yolo::mqtt_detail {

Wakeup::Wakeup() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "MQTT publisher: eventfd");
}

Wakeup::~Wakeup() {
  ::close(fd_);
}

void Wakeup::notify() {
  if (pending_.exchange(true)) return;  // already readable: the thread will look anyway
  const uint64_t one = 1;
  // Cannot block (non-blocking, and the counter is far from overflowing); nothing to do if it
  // failed, as the thread polls with a timeout anyway.
  [[maybe_unused]] const ssize_t n = ::write(fd_, &one, sizeof one);
}

void Wakeup::consume() {
  // Cleared before reading, so a notify() racing with this either sees false and writes again,
  // or wrote before the read below and is consumed with it while its message is already queued.
  pending_.store(false);
  uint64_t count = 0;
  [[maybe_unused]] const ssize_t n = ::read(fd_, &count, sizeof count);
}

}  // namespace yolo::mqtt_detail
