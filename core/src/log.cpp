#include "yolo/core/log.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace yolo::log {
namespace {

// %* : "WARNING: " / "ERROR: " / "DEBUG: " before the message, nothing for info, so normal
// output reads like Ultralytics' console while problems stand out.
class LevelPrefix : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string_view prefix;
    switch (msg.level) {
      case spdlog::level::trace:
        prefix = "TRACE: ";
        break;
      case spdlog::level::debug:
        prefix = "DEBUG: ";
        break;
      case spdlog::level::warn:
        prefix = "WARNING: ";
        break;
      case spdlog::level::err:
        prefix = "ERROR: ";
        break;
      case spdlog::level::critical:
        prefix = "CRITICAL: ";
        break;
      default:
        break;
    }
    dest.append(prefix.data(), prefix.data() + prefix.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<LevelPrefix>();
  }
};

}  // namespace

void init(spdlog::level::level_enum level) {
  const std::optional<spdlog::level::level_enum> from_environment = level_from_environment();
  if (from_environment) level = *from_environment;
  auto logger = spdlog::get("yolo");
  if (!logger) {
    logger = spdlog::stderr_color_mt("yolo");
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    formatter->add_flag<LevelPrefix>('*').set_pattern("%^%*%$%v");
    logger->set_formatter(std::move(formatter));
    spdlog::set_default_logger(logger);
  }
  logger->set_level(level);
  logger->flush_on(spdlog::level::warn);
}

std::optional<spdlog::level::level_enum> level_from_environment() {
  const char* text = std::getenv(kLevelVariable);
  if (text == nullptr || *text == '\0') return std::nullopt;
  const std::string name = text;
  for (const auto& [key, level] : {std::pair{"trace", spdlog::level::trace},
                                   {"debug", spdlog::level::debug},
                                   {"info", spdlog::level::info},
                                   {"warning", spdlog::level::warn},
                                   {"warn", spdlog::level::warn},
                                   {"error", spdlog::level::err},
                                   {"off", spdlog::level::off}}) {
    if (name == key) return level;
  }
  // Said once on stderr directly: the logger is not set up yet, and a typo must not go unseen.
  std::fprintf(stderr,
               "WARNING: %s=%s is not a log level; use trace, debug, info, warning, "
               "error or off (info is used)\n",
               kLevelVariable, text);
  return std::nullopt;
}

}  // namespace yolo::log
