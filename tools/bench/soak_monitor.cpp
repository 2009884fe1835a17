// Soak benchmark of yolo-monitor: N live RTSP cameras (an in-process gst-rtsp-server on
// 127.0.0.1, H.264 test patterns) for M minutes; the service's resident memory and frame
// counters sampled every interval. Not a test: it prints a table and a summary (memory growth
// after warm-up, frames dropped by the leaky queues).
//
//   build/bin/soak_monitor --model best.pt [--streams 4] [--minutes 10] [--interval 30]
//                          [--size 320x180] [--fps 5] [--out DIR]
#include <fcntl.h>
#include <fmt/format.h>
#include <gst/gst.h>
#include <gst/rtsp-server/rtsp-server.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "yolo/core/main_guard.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
extern char** environ;

namespace {

struct Args {
  fs::path model, out = "runs/bench/soak";
  int streams = 4, minutes = 10, interval_s = 30, fps = 5, width = 320, height = 180;
};

Args parse(int argc, char** argv) {
  Args a;
  std::string size = "320x180";
  CLI::App app{"soak_monitor: yolo-monitor on RTSP test streams for a long while"};
  app.add_option("--model", a.model, "the model to serve (a best.pt)")->required();
  app.add_option("--streams", a.streams, "RTSP streams")->capture_default_str();
  app.add_option("--minutes", a.minutes, "length of the soak")->capture_default_str();
  app.add_option("--interval", a.interval_s, "seconds between samples")->capture_default_str();
  app.add_option("--fps", a.fps, "frames per second of each stream")->capture_default_str();
  app.add_option("--size", size, "frame size WxH")->capture_default_str();
  app.add_option("--out", a.out, "folder for the table and logs")->capture_default_str();
  try {
    app.parse(argc, argv);
    if (std::sscanf(size.c_str(), "%dx%d", &a.width, &a.height) != 2 || a.width <= 0 ||
        a.height <= 0)
      throw CLI::ValidationError("--size", "'" + size + "' is not WxH, e.g. 320x180");
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  return a;
}

long rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

}  // namespace

// The soak itself; main() only maps what escapes it to an exit code.
namespace {

int soak(int argc, char** argv) {
  gst_init(&argc, &argv);
  const Args args = parse(argc, argv);
  fs::create_directories(args.out);

  // The cameras: one RTSP server, a live H.264 pattern per mount point.
  GMainContext* context = g_main_context_new();
  GMainLoop* loop = g_main_loop_new(context, FALSE);
  GstRTSPServer* server = gst_rtsp_server_new();
  gst_rtsp_server_set_address(server, "127.0.0.1");
  gst_rtsp_server_set_service(server, "0");
  GstRTSPMountPoints* mounts = gst_rtsp_server_get_mount_points(server);
  for (int i = 0; i < args.streams; ++i) {
    GstRTSPMediaFactory* f = gst_rtsp_media_factory_new();
    const std::string launch = fmt::format(
        "( videotestsrc is-live=true pattern={} ! video/x-raw,width={},height={},framerate={}/1 "
        "! x264enc tune=zerolatency speed-preset=ultrafast key-int-max={} ! rtph264pay name=pay0 "
        "pt=96 )",
        i % 2 ? "ball" : "smpte", args.width, args.height, args.fps, args.fps * 2);
    gst_rtsp_media_factory_set_launch(f, launch.c_str());
    gst_rtsp_media_factory_set_shared(f, TRUE);
    gst_rtsp_mount_points_add_factory(mounts, fmt::format("/cam{}", i).c_str(), f);
  }
  g_object_unref(mounts);
  gst_rtsp_server_attach(server, context);
  const int rtsp_port = gst_rtsp_server_get_bound_port(server);
  std::thread rtsp_thread([&] { g_main_loop_run(loop); });

  const int http_port = 18000 + static_cast<int>(getpid() % 1000);
  const fs::path config = args.out / "monitor.yaml";
  {
    std::ofstream c(config);
    c << "model: " << fs::absolute(args.model).string() << "\ndevice: cpu\n"
      << "batching: {batch_size: " << args.streams << ", batch_timeout: 20ms}\n"
      << "http: {bind: 127.0.0.1, port: " << http_port << "}\n"
      << "outputs:\n  jsonl: {path: " << fs::absolute(args.out / "results.jsonl").string()
      << ", max_bytes: 20M, keep_files: 2}\nstreams:\n";
    for (int i = 0; i < args.streams; ++i)
      c << "  - id: cam" << i << "\n    uri: rtsp://127.0.0.1:" << rtsp_port << "/cam" << i << "\n";
  }
  const std::string bin = (fs::path(argv[0]).parent_path() / "yolo-monitor").string();
  const std::string log = (args.out / "monitor.log").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  const std::string flag = "--config", path = config.string();
  char* child_argv[] = {const_cast<char*>(bin.c_str()), const_cast<char*>(flag.c_str()),
                        const_cast<char*>(path.c_str()), nullptr};
  pid_t pid = -1;
  if (posix_spawn(&pid, bin.c_str(), &actions, nullptr, child_argv, environ) != 0)
    throw std::runtime_error("cannot start " + bin);
  posix_spawn_file_actions_destroy(&actions);

  httplib::Client api("127.0.0.1", http_port);
  api.set_read_timeout(10, 0);
  fmt::print("\nyolo-monitor soak: {} RTSP streams {}x{} at {} fps, {} minutes, model {}\n\n",
             args.streams, args.width, args.height, args.fps, args.minutes, args.model.string());
  fmt::print("| {:>6} | {:>8} | {:>10} | {:>10} | {:>8} | {:<30} |\n", "min", "RSS MiB",
             "src frames", "inferred", "dropped", "states");
  fmt::print("|{:->8}|{:->10}|{:->12}|{:->12}|{:->10}|{:-<32}|\n", "", "", "", "", "", "");
  const auto start = Clock::now();
  std::vector<std::pair<double, double>> rss;  // minutes, MiB
  uint64_t last_src = 0, last_inf = 0;
  while (Clock::now() - start < std::chrono::minutes(args.minutes)) {
    std::this_thread::sleep_for(std::chrono::seconds(args.interval_s));
    const double minutes = std::chrono::duration<double>(Clock::now() - start).count() / 60;
    const double mib = rss_kib(pid) / 1024.0;
    uint64_t src = 0, inf = 0;
    std::string states;
    if (auto r = api.Get("/api/v1/streams"); r && r->status == 200) {
      const nlohmann::json all = nlohmann::json::parse(r->body);  // outlives the loop
      for (const auto& s : all["streams"]) {
        src += s.value("source_frames", uint64_t{0});
        inf += s.value("frames", uint64_t{0});
        states += s["state"].get<std::string>().substr(0, 4) + " ";
      }
    } else {
      states = r ? fmt::format("HTTP {}", r->status) : httplib::to_string(r.error());
    }
    rss.emplace_back(minutes, mib);
    fmt::print("| {:>6.1f} | {:>8.1f} | {:>10} | {:>10} | {:>8} | {:<30} |\n", minutes, mib, src,
               inf, src - inf, states);
    std::fflush(stdout);
    last_src = src, last_inf = inf;
  }
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  g_main_loop_quit(loop);
  rtsp_thread.join();
  g_object_unref(server);
  g_main_loop_unref(loop);
  g_main_context_unref(context);

  // Growth after warm-up: from the first sample at or after 2 minutes to the last one.
  auto warm = std::find_if(rss.begin(), rss.end(), [](const auto& p) { return p.first >= 2.0; });
  if (warm != rss.end() && warm != rss.end() - 1) {
    const double growth = rss.back().second - warm->second;
    const double hours = (rss.back().first - warm->first) / 60;
    fmt::print(
        "\nRSS after warm-up {:.1f} MiB, at the end {:.1f} MiB: {:+.1f} MiB ({:+.1f} MiB/h)\n",
        warm->second, rss.back().second, growth, growth / hours);
  }
  fmt::print(
      "frames: {} from the cameras, {} inferred, {} dropped by the leaky queues ({:.1f}%); "
      "exit status {}\n",
      last_src, last_inf, last_src - last_inf,
      last_src ? 100.0 * (last_src - last_inf) / last_src : 0.0,
      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return yolo::run_guarded([&] { return soak(argc, argv); });
}
