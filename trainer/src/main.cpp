// yolo-trainer: train, validate, predict with and export YOLO detectors, Ultralytics-style.
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "settings/help.h"
#include "yolo/core/device.h"
#include "yolo/core/error.h"
#include "yolo/core/log.h"
#include "yolo/core/main_guard.h"
#include "yolo/core/stop_signal.h"
#include "yolo/core/system_info.h"
#include "yolo/core/version.h"
#include "yolo/models/checkpoint.h"
#include "yolo/trainer/modes/checks.h"
#include "yolo/trainer/modes/modes.h"
#include "yolo/trainer/settings/command_line.h"
#include "yolo/trainer/settings/config.h"
#include "yolo/trainer/train/trainer.h"

namespace {

// Exit codes: 0 success, 1 runtime failure, 2 bad command line / settings / device
// (yolo::kExitFailure, yolo::kExitUsage).
using yolo::kExitFailure;

int run(const std::vector<std::string>& args) {
  using namespace yolo;
  CommandLine cmd = parse_command_line(args);
  for (const auto& w : cmd.warnings) spdlog::warn(w);

  if (cmd.help || (cmd.mode.empty() && cmd.overrides.empty())) {
    std::fputs(format_help(ConfigSchema::builtin(), cmd.mode).c_str(), stdout);
    return 0;
  }
  if (cmd.mode.empty()) {
    throw ConfigError(
        fmt::format("no mode given. Usage: yolo-trainer [detect] MODE key=value ... "
                    "with MODE one of {}",
                    fmt::join(known_modes(), ", ")));
  }
  if (cmd.mode == "version") {
    fmt::print("{}\n", kVersion);
    return 0;
  }

  Config cfg;
  // cfg=file.yaml first, so that keys given on the command line win over the file's.
  for (const auto& [key, value] : cmd.overrides) {
    if (key == "cfg" && !value.empty()) cfg.apply_file(value);
  }
  cfg.apply_text_overrides(cmd.overrides);
  log::init();
  for (const auto& w : unread_key_warnings(cfg, cmd.mode)) spdlog::warn("{}", w);
  apply_thread_setting(static_cast<int>(cfg.get_int("threads")));

  if (cmd.mode == "checks") {
    std::fputs(run_checks().text.c_str(), stdout);
    return 0;
  }
  if (cmd.mode == "info") return run_info_mode(cfg);
  if (cmd.mode == "synth") return run_synth_mode(cfg);
  // Training selects its device itself (resume may take it from the checkpoint).
  if (cmd.mode == "train") return run_train_mode(cfg, args);

  // Every other mode runs on a device: validate it before any work starts.
  BackendInfo backend = query_backend();
  SelectedDevice device = resolve_device(parse_device(cfg.get_string("device")), backend);
  spdlog::info("yolo-edge {} | LibTorch {} ({}) | device {} | {} threads", kVersion,
               backend.torch_version, backend.flavour_name(), device.describe(backend),
               torch_threads());
  if (cmd.mode == "export") return run_export_mode(cfg, device);
  if (cmd.mode == "val") return run_val_mode(cfg, device);
  if (cmd.mode == "predict") return run_predict_mode(cfg, device);
  if (cmd.mode == "track") return run_track_mode(cfg, device);
  spdlog::error("mode '{}' is not available in this build yet", cmd.mode);
  return kExitFailure;
}

}  // namespace

int main(int argc, char** argv) {
  yolo::ignore_write_signals();  // a full disk or a file size limit is reported, not fatal
  yolo::log::init();
  const std::vector<std::string> args(argv + 1, argv + argc);
  return yolo::run_guarded([&] { return run(args); });
}
