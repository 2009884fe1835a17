// Time since a point on the steady clock: milliseconds for the stage timings (preprocess,
// inference, postprocess) that predict, val and the benchmarks print; seconds for the trainer's
// run and epoch times and the benchmarks' wall times.
#pragma once

#include <chrono>

namespace yolo {

inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace yolo
