// Signals a real system sends to yolo-monitor (label `faults`), none of them masked by the test:
// a file size limit (`ulimit -f`, systemd's LimitFSIZE=) that its JSON lines output runs into
// (SIGXFSZ), and a log reader that has gone (SIGPIPE: `yolo-monitor ... | head`). Either must
// fail one output, counted and logged once, never the service: streams keep running, the HTTP API
// answers, and SIGTERM still ends it with exit code 0.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <string>
#include <thread>

#include "free_port.h"
#include "run_command.h"
#include "test_files.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// A model and a video made once for the suite: an untrained YOLOv8n at 160 px (results every
// frame, boxes or not, are what the outputs write) and a short synthetic video (a file stream
// replays).
struct Media {
  fs::path model, video;
};

const Media& media() {
  static const Media m = [] {
    const fs::path dir = fs::path(YOLO_BINARY_DIR) / "test-monitor-signals-media";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string in_dir = "cd '" + dir.string() + "' && " + YOLO_TRAINER_BIN;
    const auto e = yolo::testing::run_command(in_dir + " export model=yolov8n.yaml imgsz=160");
    const auto v = yolo::testing::run_command(
        in_dir + " synth dir=data images=4 imgsz=160 nc=1 video=True frames=90");
    EXPECT_EQ(e.exit_code, 0) << e.output;
    EXPECT_EQ(v.exit_code, 0) << v.output;
    return Media{dir / "yolov8n.torchscript", dir / "data" / "video" / "synthetic.mp4"};
  }();
  return m;
}

// yolo-monitor started as a service manager or a shell would: with a file size limit, and its
// output to a file or to a pipe whose reader is gone.
class Monitor {
 public:
  struct Options {
    rlim_t file_size_limit = RLIM_INFINITY;
    bool output_to_closed_pipe = false;
  };

  Monitor(const fs::path& config, const fs::path& log, Options options) : log_(log) {
    int pipe_fds[2] = {-1, -1};
    if (options.output_to_closed_pipe && ::pipe(pipe_fds) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      const rlimit limit{options.file_size_limit, options.file_size_limit};
      if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(126);
      const int out = options.output_to_closed_pipe
                          ? pipe_fds[1]
                          : ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (out < 0 || ::dup2(out, 1) < 0 || ::dup2(out, 2) < 0) _exit(126);
      if (options.output_to_closed_pipe) ::close(pipe_fds[0]);
      ::execl(YOLO_MONITOR_BIN, YOLO_MONITOR_BIN, "--config", config.c_str(),
              static_cast<char*>(nullptr));
      _exit(127);
    }
    if (options.output_to_closed_pipe) {
      ::close(pipe_fds[0]);  // the reader is gone before the first line is written
      ::close(pipe_fds[1]);
    }
  }
  ~Monitor() {
    if (pid_ > 0 && !ended_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  bool running() {
    if (pid_ <= 0 || ended_) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) != pid_) return true;
    ended_ = true;
    status_ = status;
    return false;
  }
  // The wait status after SIGTERM, or -1 when it did not end within a minute.
  int terminate() {
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 600 && running(); ++i) std::this_thread::sleep_for(100ms);
    return ended_ ? status_ : -1;
  }
  // How the process ended, for messages.
  std::string ending() const {
    if (!ended_) return "still running";
    if (WIFSIGNALED(status_)) return std::string("killed by ") + strsignal(WTERMSIG(status_));
    return "exit code " + std::to_string(WEXITSTATUS(status_));
  }
  std::string log() const { return fs::exists(log_) ? yolo::testing::read_file(log_) : ""; }

 private:
  fs::path log_;
  pid_t pid_ = -1;
  bool ended_ = false;
  int status_ = 0;
};

std::string write_config(const fs::path& dir, int port) {
  const fs::path config = dir / "monitor.yaml";
  std::ofstream(config) << "model: " << media().model.string() << "\ndevice: cpu\n"
                        << "http: {bind: 127.0.0.1, port: " << port << "}\n"
                        << "state_file: \"\"\n"
                        << "outputs:\n  jsonl: {path: " << (dir / "results.jsonl").string() << "}\n"
                        << "streams:\n  - id: cam\n    uri: " << media().video.string() << "\n";
  return config.string();
}

// The value of a metric series of the monitor's /api/v1/metrics, or -1 when it is absent.
double metric(int port, const std::string& series) {
  const auto r = yolo::testing::run_command(
      "curl -s --max-time 5 http://127.0.0.1:" + std::to_string(port) + "/api/v1/metrics");
  const size_t at = r.output.find(series + " ");
  if (r.exit_code != 0 || at == std::string::npos) return -1;
  return std::stod(r.output.substr(at + series.size() + 1));
}

bool eventually(const std::function<bool()>& check, std::chrono::seconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (check()) return true;
    std::this_thread::sleep_for(200ms);
  }
  return check();
}

}  // namespace

// The JSON lines output runs into a 48 KB file size limit: the write fails with EFBIG (SIGXFSZ
// would have killed the process), the failure is logged once and counted, and the stream keeps
// getting results over HTTP.
TEST(MonitorSignals, AFileSizeLimitFailsTheOutputNotTheService) {
  ASSERT_TRUE(fs::exists(media().model) && fs::exists(media().video));
  yolo::testing::TempDir tmp("monitor_fsize");
  const int port = yolo::testing::free_port();
  constexpr rlim_t kLimit = 48 * 1024;
  Monitor monitor(write_config(tmp.path, port), tmp.path / "monitor.log", {kLimit, false});
  const std::string errors = "yolo_monitor_output_errors_total{stream=\"cam\"}";
  const std::string frames = "yolo_monitor_stream_frames_total{stream=\"cam\"}";
  ASSERT_TRUE(eventually([&] { return !monitor.running() || metric(port, errors) > 0; }, 180s))
      << monitor.ending() << "\n"
      << monitor.log();
  ASSERT_TRUE(monitor.running()) << monitor.ending() << "\n" << monitor.log();
  const double frames_at_limit = metric(port, frames);
  EXPECT_TRUE(eventually([&] { return metric(port, frames) > frames_at_limit + 10; }, 60s))
      << "results stopped at the file size limit";
  EXPECT_LE(fs::file_size(tmp.path / "results.jsonl"), kLimit);
  const std::string log = monitor.log();
  EXPECT_NE(log.find("File too large"), std::string::npos) << log;
  EXPECT_NE(log.find(tmp.path.string() + "/results.jsonl"), std::string::npos) << log;
  const int status = monitor.terminate();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << monitor.ending() << "\n" << log;
}

// Started as `yolo-monitor --config x.yaml | head -1` after head has gone: the log lines fail
// (EPIPE; SIGPIPE would have killed the process at its first line), the service runs.
TEST(MonitorSignals, ALogReaderThatHasGoneDoesNotEndTheService) {
  ASSERT_TRUE(fs::exists(media().model) && fs::exists(media().video));
  yolo::testing::TempDir tmp("monitor_pipe");
  const int port = yolo::testing::free_port();
  Monitor monitor(write_config(tmp.path, port), tmp.path / "monitor.log", {RLIM_INFINITY, true});
  const std::string frames = "yolo_monitor_stream_frames_total{stream=\"cam\"}";
  ASSERT_TRUE(eventually([&] { return !monitor.running() || metric(port, frames) > 10; }, 180s))
      << monitor.ending();
  EXPECT_TRUE(monitor.running()) << monitor.ending();
  const int status = monitor.terminate();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << monitor.ending();
}
