// Milliseconds since a point on the steady clock, for the stage timings (preprocess, inference,
// postprocess) that predict, val and the benchmarks print.
#pragma once

#include <chrono>

namespace yolo {

inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace yolo
