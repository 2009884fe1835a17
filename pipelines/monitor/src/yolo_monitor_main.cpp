// yolo-monitor: watches cameras (RTSP, files, V4L2, HTTP), runs YOLO detection on them through
// the `yolo` element and serves the results over HTTP, until SIGTERM.
//
//   yolo-monitor --config monitor.yaml          run (systemd: Type=notify)
//   yolo-monitor --config monitor.yaml --check  validate the configuration and exit
//
// Exit codes: 0 stopped by SIGTERM/SIGINT after flushing its outputs; 1 could not start (an
// output, the HTTP address, the `yolo` element); 2 invalid command line or configuration (every
// problem listed with its key path). The systemd unit does not restart on 2
// (RestartPreventExitStatus): a broken file does not fix itself.
//
// Signals: SIGTERM/SIGINT stop (a second one ends the process at once); SIGHUP re-reads the
// configuration and changes only the streams whose settings changed (an invalid file is logged
// and the running configuration kept).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gst/gst.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "yolo/core/error.h"
#include "yolo/core/log.h"
#include "yolo/core/stop_signal.h"
#include "yolo/core/strings.h"
#include "yolo/core/version.h"
#include "yolo/monitor/inference_elements.h"
#include "yolo/monitor/model_check.h"
#include "yolo/monitor/monitor_config.h"
#include "yolo/monitor/monitor_service.h"
#include "yolo/monitor/sd_notify.h"

namespace fs = std::filesystem;

namespace {

// The `yolo` element from the build tree or the install tree when GST_PLUGIN_PATH does not
// already provide it: <bin>/../gst-plugins (build), <bin>/../lib/gstreamer-1.0 and the
// configured install folder.
bool find_yolo_element() {
  if (GstElementFactory* f = gst_element_factory_find("yolo")) {
    gst_object_unref(f);
    return true;
  }
  std::error_code ec;
  const fs::path bin = fs::read_symlink("/proc/self/exe", ec).parent_path();
  for (const fs::path& dir : {bin / ".." / "gst-plugins", bin / ".." / "lib" / "gstreamer-1.0",
                              fs::path(YOLO_GST_PLUGIN_INSTALL_DIR)}) {
    if (!fs::exists(dir / "libgstyolo.so")) continue;
    gst_registry_scan_path(gst_registry_get(), dir.c_str());
    if (GstElementFactory* f = gst_element_factory_find("yolo")) {
      gst_object_unref(f);
      spdlog::info("yolo element loaded from {}", fs::weakly_canonical(dir).string());
      return true;
    }
  }
  return false;
}

// An argument the command line does not take, named, with the nearest valid option.
std::string unknown_argument(const CLI::App& app, const std::string& arg) {
  std::vector<std::string> options;
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& name : o->get_lnames()) options.push_back("--" + name);
  }
  if (arg.size() < 2 || arg[0] != '-') {
    return fmt::format("unexpected argument '{}': the configuration is given as --config {}", arg,
                       arg);
  }
  const std::string name = arg.substr(0, arg.find('='));
  const std::vector<std::string> near = yolo::closest_matches(name, options, 1);
  return fmt::format("unknown option '{}'{}; the options are {} (yolo-monitor --help)", name,
                     near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near[0]),
                     fmt::join(options, ", "));
}

struct CommandLine {
  std::string config_path;
  bool check_only = false;
};

// Fills `cmd`, or returns the exit code when the program ends here (--help, --version, a usage
// error named with what to type). Sets up logging.
std::optional<int> parse_command_line(int argc, char** argv, CommandLine& cmd) {
  CLI::App app{"yolo-monitor: YOLO detection on cameras, results over HTTP (docs/monitor.md)"};
  // Not required() and extras allowed: CLI11 would report "--config is required" for
  // `--confg x.yaml`, the consequence of a typo instead of the typo; both are checked below.
  app.add_option("-c,--config", cmd.config_path, "service configuration (YAML)");
  app.add_flag("--check", cmd.check_only, "validate the configuration and exit");
  app.set_version_flag("--version", std::string("yolo-monitor ") + yolo::kVersion);
  app.allow_extras();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : yolo::kExitUsage;
  }
  yolo::log::init();
  if (!app.remaining().empty()) {
    spdlog::error("{}", unknown_argument(app, app.remaining().front()));
    return yolo::kExitUsage;
  }
  if (cmd.config_path.empty()) {
    spdlog::error(
        "--config is required: yolo-monitor --config /etc/yolo-monitor/monitor.yaml (config/"
        "monitor.yaml is an example with every key; docs/monitor.md); --help lists the options");
    return yolo::kExitUsage;
  }
  return std::nullopt;
}

// --check: models and classes too, since a file that does not load or a class the model lacks
// is a configuration error, not an outage to retry. The exit code.
int check_configuration(const yolo::monitor::MonitorConfig& config, const std::string& path) {
  std::vector<std::string> problems = yolo::monitor::check_models(config);
  for (std::string& p : yolo::monitor::check_referenced_files(config)) problems.push_back(p);
  for (const auto& p : problems) spdlog::error("{}: {}", path, p);
  if (!problems.empty()) return yolo::kExitUsage;
  std::printf("%s: valid (%zu streams, models load, every file it names opens)\n", path.c_str(),
              config.streams.size());
  return 0;
}

// What the signal thread asks of the main thread.
struct Requests {
  std::mutex mutex;
  std::condition_variable cv;
  bool stop = false;
  int reloads = 0;
};

// The configuration file read and validated into `config`, or the exit code when it is not.
std::optional<int> load_configuration(const std::string& path,
                                      yolo::monitor::MonitorConfig& config) {
  try {
    config = yolo::monitor::load_config(path);
  } catch (const yolo::Error& e) {
    spdlog::error("{}", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    spdlog::error("{}: {}", path, e.what());
    return yolo::kExitFailure;
  }
  return std::nullopt;
}

// The service running every configured stream through the `yolo` element, or the exit code when
// it cannot start.
std::optional<int> start_service(const yolo::monitor::MonitorConfig& config,
                                 std::unique_ptr<yolo::monitor::MonitorService>& service) {
  // The `yolo` element (and a yolotracker) with the stream's settings as typed properties.
  const auto inference = [batching = config.batching](
                             const yolo::monitor::StreamConfig& stream,
                             const yolo::monitor::StreamSettings& settings) {
    return yolo::monitor::inference_elements(stream, settings, batching);
  };
  try {
    service = std::make_unique<yolo::monitor::MonitorService>(
        config, inference, yolo::monitor::SystemdNotifier::from_environment());
  } catch (const yolo::Error& e) {
    spdlog::error("{}", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    spdlog::error("yolo-monitor could not start: {}", e.what());
    return yolo::kExitFailure;
  }
  return std::nullopt;
}

// Waits for signals: a reload re-reads `config_path` and applies it (an invalid file keeps the
// running configuration); returns on a stop request.
void serve_until_stopped(yolo::monitor::MonitorService& service, Requests& requests,
                         const std::string& config_path) {
  std::unique_lock<std::mutex> lock(requests.mutex);
  for (;;) {
    requests.cv.wait(lock, [&] { return requests.stop || requests.reloads > 0; });
    if (requests.stop) return;
    requests.reloads = 0;
    lock.unlock();
    try {
      const auto fresh = yolo::monitor::load_config(config_path);
      const auto summary = service.reload(fresh);
      spdlog::info("configuration reloaded from {}: added [{}], removed [{}], restarted [{}]",
                   config_path, fmt::join(summary.added, ", "), fmt::join(summary.removed, ", "),
                   fmt::join(summary.restarted, ", "));
    } catch (const yolo::Error& e) {
      spdlog::error("reload refused, the running configuration stays: {}", e.what());
    } catch (const std::exception& e) {
      spdlog::error("reload failed, the running configuration stays: {}", e.what());
    }
    lock.lock();
  }
}

}  // namespace

int main(int argc, char** argv) {
  yolo::ignore_write_signals();  // a client that hangs up or a file size limit is not fatal
  CommandLine cmd;
  if (const std::optional<int> done = parse_command_line(argc, argv, cmd)) return *done;
  yolo::monitor::MonitorConfig config;
  if (const std::optional<int> invalid = load_configuration(cmd.config_path, config))
    return *invalid;
  if (cmd.check_only) return check_configuration(config, cmd.config_path);

  // Handlers before any GStreamer or model thread starts work; SIGHUP is a reload.
  Requests requests;
  yolo::StopSignalWatcher signals(
      [&](int sig) {
        std::lock_guard<std::mutex> lock(requests.mutex);
        if (sig == SIGHUP) {
          ++requests.reloads;
        } else {
          requests.stop = true;
        }
        requests.cv.notify_all();
      },
      /*exit_on_second=*/true, /*watch_hangup=*/true);

  gst_init(nullptr, nullptr);
  if (!find_yolo_element()) {
    spdlog::error(
        "the `yolo` GStreamer element was not found; install the plugin (cmake --install) or set "
        "GST_PLUGIN_PATH to the folder holding libgstyolo.so (<build>/gst-plugins)");
    return yolo::kExitFailure;
  }
  std::unique_ptr<yolo::monitor::MonitorService> service;
  if (const std::optional<int> failed = start_service(config, service)) return *failed;
  spdlog::info("yolo-monitor {}: {} streams, HTTP on {}:{}", yolo::kVersion, config.streams.size(),
               config.http.bind, service->http_port());

  serve_until_stopped(*service, requests, cmd.config_path);
  spdlog::info("stopping: draining streams and flushing outputs");
  service->stop();
  service.reset();
  spdlog::info("stopped");
  return 0;
}
