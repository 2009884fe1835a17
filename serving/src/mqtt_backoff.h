// The wait between connection attempts: min, 2 x min, 4 x min, ... up to max, back to min after
// a successful connection. Each wait is shortened by a random part of up to a fifth so that many
// boxes that lost the same broker do not all come back in the same second.
#pragma once

#include <chrono>
#include <random>

namespace yolo::mqtt_detail {

class ReconnectBackoff {
 public:
  ReconnectBackoff(std::chrono::milliseconds min, std::chrono::milliseconds max);

  // The wait before the next attempt; each call doubles the following one (up to max).
  std::chrono::milliseconds next();
  // A connection succeeded: the next wait is min again.
  void reset() { failures_ = 0; }

 private:
  const std::chrono::milliseconds min_, max_;
  int failures_ = 0;
  std::minstd_rand random_;
};

}  // namespace yolo::mqtt_detail
