// Wall-clock time as every JSON output of the product writes it.
#pragma once

#include <chrono>
#include <string>

namespace yolo {

// ISO 8601 UTC with milliseconds: "2026-11-30T05:44:25.123Z".
std::string format_utc(std::chrono::system_clock::time_point t);

}  // namespace yolo
