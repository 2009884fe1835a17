// The one logger for everything outside GStreamer code (which logs through GST_DEBUG).
// Call sites use spdlog directly: spdlog::info("..."), spdlog::warn(...), spdlog::debug(...).
// Log lines go to stderr so that stdout stays free for a command's own output (reports, JSON).
#pragma once

#include <spdlog/spdlog.h>

#include <string_view>

namespace yolo::log {

// Installs the product's default logger (plain lines, "WARNING:"/"ERROR:" prefixes, colour on a
// terminal) with the given level. Safe to call more than once.
void init(spdlog::level::level_enum level = spdlog::level::info);

// Maps the `verbose=` key: true -> debug, false -> info. Also accepts level names for `log_level`.
spdlog::level::level_enum level_from_verbose(bool verbose);

}  // namespace yolo::log
