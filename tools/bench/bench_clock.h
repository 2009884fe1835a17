// Wall-clock timing shared by the benchmarks.
#pragma once

#include <chrono>

namespace yolo::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace yolo::bench
