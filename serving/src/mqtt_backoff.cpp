#include "mqtt_backoff.h"

#include <algorithm>

namespace yolo::mqtt_detail {

ReconnectBackoff::ReconnectBackoff(std::chrono::milliseconds min, std::chrono::milliseconds max)
    : min_(min), max_(std::max(min, max)), random_(std::random_device{}()) {}

std::chrono::milliseconds ReconnectBackoff::next() {
  // Doubling stops once max is reached, so the shift never overflows.
  auto wait = min_;
  for (int i = 0; i < failures_ && wait < max_; ++i) wait *= 2;
  wait = std::min(wait, max_);
  if (wait < max_) ++failures_;
  std::uniform_int_distribution<long long> jitter(0, wait.count() / 5);
  return wait - std::chrono::milliseconds(jitter(random_));
}

}  // namespace yolo::mqtt_detail
