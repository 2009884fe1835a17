// Wall-clock timing shared by the benchmarks.
#pragma once

#include <chrono>

#include "yolo/core/stopwatch.h"

namespace yolo::bench {

using Clock = std::chrono::steady_clock;
using yolo::seconds_since;

}  // namespace yolo::bench
