// `yolo-trainer predict`: settings -> PredictOptions, Ctrl-C / SIGTERM -> a clean stop (videos
// finished, files complete), exit code 0 when any frame was processed, 1 when nothing could be
// read.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <csignal>

#include "yolo/core/device.h"
#include "yolo/core/stop_signal.h"
#include "yolo/trainer/modes/modes.h"
#include "yolo/trainer/modes/predict_settings.h"
#include "yolo/trainer/settings/config.h"

namespace yolo {

namespace {

int run_prediction(const PredictOptions& options) {
  // Before the model loads, so that a signal during setup is seen too.
  std::atomic<bool> stop{false};
  StopSignalWatcher watcher([&](int sig) {
    spdlog::warn(
        "{} received: finishing the current frame and closing the outputs (press Ctrl-C "
        "again to quit at once)",
        sig == SIGINT ? "Ctrl-C" : "SIGTERM");
    stop = true;
  });
  const PredictReport report = run_predict(options, &stop);
  if (report.frames == 0) {
    spdlog::error(
        "nothing could be read from source={} ({} problem{} above): fix the source and "
        "run again",
        options.source, report.problems.size(), report.problems.size() == 1 ? "" : "s");
    return 1;
  }
  if (!report.problems.empty())
    spdlog::warn("{} input{} of source={} skipped (see above)", report.problems.size(),
                 report.problems.size() == 1 ? "" : "s", options.source);
  return 0;
}

}  // namespace

int run_predict_mode(const Config& cfg, const SelectedDevice& device) {
  return run_prediction(predict_options_from_config(cfg, device.torch_string()));
}

int run_track_mode(const Config& cfg, const SelectedDevice& device) {
  return run_prediction(track_options_from_config(cfg, device.torch_string()));
}

}  // namespace yolo
