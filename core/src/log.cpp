#include "yolo/core/log.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>

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

spdlog::level::level_enum level_from_verbose(bool verbose) {
  return verbose ? spdlog::level::debug : spdlog::level::info;
}

}  // namespace yolo::log
