// The one logger for everything outside GStreamer code (which logs through GST_DEBUG).
// Call sites use spdlog directly: spdlog::info("..."), spdlog::warn(...), spdlog::debug(...).
// Log lines go to stderr so that stdout stays free for a command's own output (reports, JSON).
#pragma once

#include <spdlog/spdlog.h>

#include <optional>
#include <string_view>

namespace yolo::log {

// The environment variable that sets the log level of every program: YOLO_LOG_LEVEL=debug shows
// the DEBUG lines (files written, HTTP requests, engine details) that are hidden by default, as
// Ultralytics' console hides its debug output. `verbose=` does not change the level: like
// Ultralytics', it decides what a mode reports (per-image lines, per-class tables).
inline constexpr const char* kLevelVariable = "YOLO_LOG_LEVEL";

// Installs the product's default logger (plain lines, "WARNING:"/"ERROR:" prefixes, colour on a
// terminal) with the given level, or the level YOLO_LOG_LEVEL names. Safe to call more than once.
void init(spdlog::level::level_enum level = spdlog::level::info);

// The level YOLO_LOG_LEVEL names (trace, debug, info, warning/warn, error, off); nullopt when it
// is unset or empty, and when it names no level (with a warning on stderr).
std::optional<spdlog::level::level_enum> level_from_environment();

}  // namespace yolo::log
