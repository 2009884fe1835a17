#include "yolo/core/utc_time.h"

#include <fmt/format.h>

#include <ctime>

namespace yolo {

std::string format_utc(std::chrono::system_clock::time_point t) {
  using namespace std::chrono;
  const auto ms = duration_cast<milliseconds>(t.time_since_epoch()).count();
  // Floor division, so that times before 1970 keep a positive millisecond part.
  const auto secs_count = ms / 1000 - (ms % 1000 < 0 ? 1 : 0);
  const int millis = static_cast<int>(ms - secs_count * 1000);
  const std::time_t secs = static_cast<std::time_t>(secs_count);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03d}Z", buf, millis);
}

}  // namespace yolo
