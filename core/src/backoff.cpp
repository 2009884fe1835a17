#include "yolo/core/backoff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <stdexcept>

namespace yolo {

Backoff::Backoff(BackoffOptions options, RandomSource random)
    : options_(options), random_(std::move(random)) {
  if (options_.initial.count() <= 0) {
    throw std::invalid_argument("backoff: initial delay must be > 0 ms");
  }
  if (options_.max < options_.initial) {
    throw std::invalid_argument(fmt::format("backoff: max ({} ms) must be >= initial ({} ms)",
                                            options_.max.count(), options_.initial.count()));
  }
  if (!(options_.jitter >= 0 && options_.jitter <= 1)) {
    throw std::invalid_argument(fmt::format("backoff: jitter {} is not in 0..1", options_.jitter));
  }
  if (!random_) {
    auto engine = std::make_shared<std::mt19937_64>(std::random_device{}());
    random_ = [engine] { return std::uniform_real_distribution<double>(0.0, 1.0)(*engine); };
  }
}

std::chrono::milliseconds Backoff::next() {
  // Doubling stops at the cap; beyond 2^40 the product would only overflow.
  const double factor = std::ldexp(1.0, std::min(attempts_, 40));
  const double base = std::min(static_cast<double>(options_.max.count()),
                               static_cast<double>(options_.initial.count()) * factor);
  ++attempts_;
  const double u = std::clamp(random_(), 0.0, 1.0);
  return std::chrono::milliseconds(std::llround(base * (1.0 - options_.jitter * u)));
}

}  // namespace yolo
