// Every shell command of README.md and docs/*.md, run as typed: page by page, each page in its own
// fresh checkout (the repository's tracked files, shipped configs included, with `build/` the
// build tree and its bin/ on PATH as an installed product would be), in the order the page gives
// them and in one shell session per page (what a line exports, the later lines see).
//
// A reader brings files the pages name but the checkout does not hold; they are made once, the way
// the README makes them: the quickstart's run folder (tools/quickstart.sh at miniature size, so
// runs/quickstart/monitor.yaml and its model exist), the README's synthetic dataset, and a video,
// an image folder and a trained model under the names the pages use (video.mp4, clip.mp4, images/,
// best.pt, runs/detect/train/weights/best.pt, yolo11n.torchscript).
//
// A command that has not ended after a few seconds is what the page says it is: a run until
// Ctrl-C (training, a service, a pipeline). The product's commands that end by themselves
// (`yolo-trainer val`, `predict` on files, `export`, ...) are waited for instead, however long a
// loaded machine makes them. If the page's next lines are curl calls to it, they run
// once its /api/v1/health says ready; then, or at once, it gets SIGINT as a reader's Ctrl-C and
// must end cleanly. Lines that cannot run here are left out by a rule with its reason (a GPU, root,
// a camera on the reader's network, a dataset that is downloaded elsewhere, a measurement of
// hours), or by a `<!-- docs-test: skip: why -->` line right above a block; the test prints every
// line left out, and what it ran.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "doc_shell.h"
#include "free_port.h"
#include "run_command.h"

namespace fs = std::filesystem;
namespace docs = yolo::testing::docs;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

const fs::path kSource = YOLO_SOURCE_DIR;
const fs::path kBuild = YOLO_BINARY_DIR;

// How long a command may take before it counts as one that runs until stopped, how long a service
// may take to say ready before the page's curl calls run anyway, how long a command may take to
// end after Ctrl-C (a trainer saves its checkpoint first).
// A command that ends by itself gets finite_wait before it counts as hung.
struct Timing {
  std::chrono::milliseconds grace{20s}, ready_wait{120s}, stop_wait{90s}, finite_wait{900s};
};

// ---- which lines run ------------------------------------------------------------------------

struct SkipRule {
  std::regex pattern;
  std::string reason;
};

bool has_display() {
  return std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY");
}

// Why a documented line does not run here; empty when it runs. The rules name kinds of lines a
// test machine cannot run, never single lines.
std::string skip_reason(const std::string& page, const docs::ShellLine& line) {
  if (line.marker.rfind("skip:", 0) == 0) return docs::trim(line.marker.substr(5));
  if (page == "docs/benchmarks.md" || page == "docs/benchmarks-history.md")
    return "reproduces a measurement (minutes to hours; the benchmark pages run them by hand)";
  static const std::vector<SkipRule> rules = {
      {std::regex(R"((^|\s)(sudo|systemctl|usermod)\s)"), "changes the system (root, systemd)"},
      {std::regex(R"((^|\s)(cmake|tools/(install-deps|quickstart|test|gpu-check|)"
                  R"(package(-check)?)\.sh)(\s|$))"),
       "installs or builds: CI runs it itself (.ci/run; test_quickstart runs the quickstart, "
       "test_package the packaging)"},
      {std::regex(R"(device=(cuda|[0-9])|half=True|rocminfo|rocm-smi|/dev/kfd|build-rocm/|HSA_)"),
       "needs a GPU (tools/gpu-check.sh runs the GPU path where one is lent)"},
      {std::regex(R"(coco8\.yaml)"),
       "needs Ultralytics' coco8 dataset: not shipped, and nothing is downloaded"},
      {std::regex(R"((source|location)=rtsp://|-h broker\.local)"),
       "needs the reader's camera or broker on their network"},
      {std::regex(R"(=\.\.\.|\s\.\.\.(\s|$))"), "has a placeholder for the reader to fill in"},
  };
  for (const SkipRule& rule : rules) {
    if (std::regex_search(line.text, rule.pattern)) return rule.reason;
  }
  if (line.text.find("autovideosink") != std::string::npos && !has_display())
    return "opens a window: needs a display (autovideosink)";
  return {};
}

// The port of a `curl ... localhost:PORT/...` line, if it is one.
std::optional<int> curl_port(const std::string& text) {
  static const std::regex curl(R"(^curl\s.*(localhost|127\.0\.0\.1):([0-9]+))");
  std::smatch m;
  if (!std::regex_search(text, m, curl)) return std::nullopt;
  return std::stoi(m[2].str());
}

// `export NAME=value` or `NAME=value` alone on its line (a comment may follow).
bool is_assignment(const std::string& text) {
  static const std::regex assign(R"(^(export\s+)?[A-Za-z_][A-Za-z0-9_]*=[^\s;|&#]*(\s+#.*)?$)");
  return std::regex_match(text, assign);
}

// ---- processes --------------------------------------------------------------------------------

// A documented line running in its own process group, its output in a log file.
class LineProcess {
 public:
  LineProcess(const fs::path& dir, const std::string& script, const fs::path& log) : log_(log) {
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
    if (pid_ == 0) {
      ::setpgid(0, 0);
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || ::dup2(fd, 1) < 0 || ::dup2(fd, 2) < 0 || ::chdir(dir.c_str()) != 0) _exit(126);
      ::close(fd);
      ::execl("/bin/bash", "bash", "-c", script.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    ::setpgid(pid_, pid_);
  }
  ~LineProcess() { kill_group(); }
  LineProcess(const LineProcess&) = delete;
  LineProcess& operator=(const LineProcess&) = delete;

  // True when the process ended within `limit`; its wait status is then in status().
  bool wait_for(std::chrono::milliseconds limit) {
    const auto end = Clock::now() + limit;
    while (!ended_) {
      int status = 0;
      const pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        ended_ = true;
        status_ = status;
        break;
      }
      if (Clock::now() >= end) return false;
      std::this_thread::sleep_for(100ms);
    }
    return true;
  }
  bool ended() { return wait_for(0ms); }
  // Ctrl-C in a terminal: SIGINT to the whole foreground process group.
  void interrupt() const { ::kill(-pid_, SIGINT); }
  // Ends whatever the line left behind (`mosquitto &`).
  void kill_group() {
    ::kill(-pid_, SIGKILL);
    if (!ended_) wait_for(10s);
  }
  int status() const { return status_; }
  std::string output_tail() const {
    const std::string out = docs::read_text(log_);
    return out.size() > 3000 ? "..." + out.substr(out.size() - 3000) : out;
  }
  std::string output() const { return docs::read_text(log_); }

 private:
  fs::path log_;
  pid_t pid_ = -1;
  bool ended_ = false;
  int status_ = 0;
};

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("killed by ") + strsignal(WTERMSIG(status));
  return "ended oddly";
}

// The first command of a line from its program on: NAME=value words before it dropped.
std::vector<std::string> program_words(const std::string& text) {
  const auto words = docs::shell_commands(text).front();
  const auto program = std::find_if(words.begin(), words.end(), [](const std::string& w) {
    return w.find('=') == std::string::npos;
  });
  return {program, words.end()};
}

// True for lines that run one of the product's programs, which must end a run stopped by Ctrl-C
// with exit code 0 (docs/cli.md: training saves last.pt first); other programs may also report
// the interrupt (130) or die of it.
bool runs_product_program(const std::string& text) {
  const auto words = program_words(text);
  return !words.empty() &&
         std::regex_search(words[0], std::regex(R"((^|/)yolo-(trainer|monitor)$)"));
}

// True for a line of the product's that ends by itself: a yolo-trainer mode other than `train`,
// except `predict` on a stream (rtsp://, http(s)://, a webcam number). Such a line is waited for:
// interrupting a slow `val` on a loaded machine would report the test's impatience as its failure.
bool ends_by_itself(const std::string& text) {
  const auto words = program_words(text);
  if (words.size() < 2 || !std::regex_search(words[0], std::regex(R"((^|/)yolo-trainer$)")) ||
      words[1] == "train")
    return false;
  return words[1] != "predict" ||
         !std::regex_search(text, std::regex(R"(\bsource=("?)(rtsp|https?)://|\bsource=\d+\b)"));
}

// Ends a run as a reader's Ctrl-C does; empty when it ended as it should, soon.
std::string stop_with_ctrl_c(LineProcess& p, const std::string& text, const Timing& timing) {
  p.interrupt();
  if (!p.wait_for(timing.stop_wait)) return "did not end after Ctrl-C";
  const int s = p.status();
  if (WIFEXITED(s) && WEXITSTATUS(s) == 0) return {};
  if (!runs_product_program(text) &&
      ((WIFEXITED(s) && WEXITSTATUS(s) == 130) || (WIFSIGNALED(s) && WTERMSIG(s) == SIGINT)))
    return {};
  return "after Ctrl-C: " + describe_status(s);
}

bool says_ready(int port) {
  const auto r = yolo::testing::run_command(
      "curl -s --max-time 2 http://127.0.0.1:" + std::to_string(port) + "/api/v1/health");
  static const std::regex ready(R"("ready"\s*:\s*true)");
  return r.exit_code == 0 && std::regex_search(r.output, ready);
}

// ---- the reader's files and the checkouts -------------------------------------------------------

void copy_tree(const fs::path& from, const fs::path& to) {
  fs::create_directories(to.parent_path());
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

// What a reader who followed the README has, made by the product's own commands.
class ReaderFiles {
 public:
  explicit ReaderFiles(const fs::path& dir) : dir_(dir) {}

  // Empty on success, otherwise what failed with its output.
  std::string make() {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const std::string trainer = (kBuild / "bin" / "yolo-trainer").string();
    const std::string in_dir = "cd " + dir_.string() + " && ";
    const std::vector<std::pair<std::string, std::string>> steps = {
        {"the quickstart (miniature)",
         "cd " + kSource.string() + " && SKIP_SETUP=1 BUILD_DIR=" + kBuild.string() +
             " RUN_DIR=" + (dir_ / "runs" / "quickstart").string() +
             " IMAGES=48 IMGSZ=128 EPOCHS=2 FRAMES=60 PORT=" +
             std::to_string(yolo::testing::free_port()) + " tools/quickstart.sh"},
        {"the README's dataset",
         in_dir + trainer + " synth dir=datasets/synthetic images=200 imgsz=640 nc=3 video=True"},
        // 10 s at 30 fps: a pipeline that plays it in real time is still playing when curl asks.
        {"a video",
         in_dir + trainer + " synth dir=media images=8 imgsz=320 nc=1 video=True frames=300"},
        {"an exported yolo11n", in_dir + trainer + " export model=yolo11n.yaml imgsz=320"},
    };
    for (const auto& [what, cmd] : steps) {
      const auto r = yolo::testing::run_command(cmd);
      if (r.exit_code != 0) return what + " failed: " + cmd + "\n" + r.output;
    }
    const fs::path best = dir_ / "runs" / "quickstart" / "train" / "weights" / "best.pt";
    copy_tree(best, dir_ / "best.pt");
    copy_tree(best, dir_ / "runs" / "detect" / "train" / "weights" / "best.pt");
    copy_tree(dir_ / "media" / "video" / "synthetic.mp4", dir_ / "video.mp4");
    copy_tree(dir_ / "media" / "video" / "synthetic.mp4", dir_ / "clip.mp4");
    copy_tree(dir_ / "media" / "images" / "val", dir_ / "images");
    fs::remove_all(dir_ / "media");
    return {};
  }

  void copy_into(const fs::path& checkout) const {
    for (const auto& entry : fs::directory_iterator(dir_))
      copy_tree(entry.path(), checkout / entry.path().filename());
  }

 private:
  fs::path dir_;
};

// The repository's tracked files, as a fresh clone has them; `build` is the build tree.
std::string make_checkout(const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto files = yolo::testing::run_command("git -C " + kSource.string() + " ls-files");
  if (files.exit_code != 0) return "git ls-files failed: " + files.output;
  for (const std::string& name : docs::split_lines(files.output)) {
    if (name.empty() || !fs::is_regular_file(kSource / name)) continue;
    fs::create_directories((dir / name).parent_path());
    fs::copy_file(kSource / name, dir / name, fs::copy_options::overwrite_existing);
  }
  fs::create_directory_symlink(kBuild, dir / "build");
  return {};
}

// ---- running a page ---------------------------------------------------------------------------

struct LineResult {
  std::string where, text;
  std::string skipped;  // why it was not run
  std::string failure;  // why it failed; empty when it passed or was skipped
};

class PageRun {
 public:
  explicit PageRun(const fs::path& checkout, Timing timing = {})
      : checkout_(checkout), timing_(timing) {
    fs::create_directories(checkout_ / ".docs-test");
    std::ofstream(checkout_ / ".docs-test" / "env").flush();
  }

  std::vector<LineResult> run(const std::string& page, const std::vector<docs::ShellLine>& lines) {
    results_.clear();
    bool skipped_in_block = false;
    for (size_t i = 0; i < lines.size(); ++i) {
      const docs::ShellLine& line = lines[i];
      if (i > 0 && lines[i - 1].block != line.block) stop_service();
      if (i == 0 || lines[i - 1].block != line.block) skipped_in_block = false;
      results_.push_back({line.where, line.text, skip_reason(page, line), {}});
      if (results_.back().skipped.empty() && skipped_in_block && !service_ && curl_port(line.text))
        results_.back().skipped = "asks the pipeline or service above it, which is left out";
      if (!results_.back().skipped.empty()) {
        skipped_in_block = true;
        continue;
      }
      const bool next_in_block = i + 1 < lines.size() && lines[i + 1].block == line.block &&
                                 skip_reason(page, lines[i + 1]).empty();
      results_.back().failure = run_line(line, next_in_block ? &lines[i + 1] : nullptr);
    }
    stop_service();
    for (auto& p : finished_) p->kill_group();
    return results_;
  }

 private:
  std::string script_for(const std::string& text) const {
    // One shell session per page: what earlier lines exported is read back first. The test's
    // own GStreamer plugin path is not inherited: the page must set it as a reader does. A
    // pipeline fails when any of its parts does (`curl ... | jq` against a dead server).
    return "set -o pipefail; unset GST_PLUGIN_PATH; export PATH=" + (kBuild / "bin").string() +
           ":$PATH GST_REGISTRY=$PWD/.docs-test/registry.bin; set -a; . ./.docs-test/env; set "
           "+a\n" +
           text;
  }

  // Runs one line; empty when it did what the page says.
  std::string run_line(const docs::ShellLine& line, const docs::ShellLine* next) {
    const bool client = curl_port(line.text).has_value();
    if (!client) stop_service();
    const fs::path log = checkout_ / ".docs-test" / (std::to_string(results_.size()) + ".log");
    auto p = std::make_unique<LineProcess>(checkout_, script_for(line.text), log);
    const std::optional<int> serves = next && !client ? curl_port(next->text) : std::nullopt;
    if (serves) {
      // A service or pipeline the page's next lines ask over HTTP: they run once it is ready.
      const auto end = Clock::now() + timing_.ready_wait;
      while (!p->ended() && !says_ready(*serves) && Clock::now() < end)
        std::this_thread::sleep_for(250ms);
      if (!p->ended()) {
        service_ = std::move(p);
        service_text_ = line.text;
        service_result_ = results_.size() - 1;
        return {};
      }
    } else if (ends_by_itself(line.text)) {
      if (!p->wait_for(timing_.finite_wait)) {
        p->interrupt();
        p->wait_for(timing_.stop_wait);
        finished_.push_back(std::move(p));
        return "did not end within " +
               std::to_string(
                   std::chrono::duration_cast<std::chrono::seconds>(timing_.finite_wait).count()) +
               " s";
      }
    } else if (!p->wait_for(client ? 60s : timing_.grace)) {
      if (client) return "curl did not answer within 60 s";
      // A run until Ctrl-C (training, a service, a pipeline on a long video).
      const std::string stop = stop_with_ctrl_c(*p, line.text, timing_);
      std::string failure = stop.empty() ? std::string() : stop + "\n" + p->output_tail();
      finished_.push_back(std::move(p));
      return failure;
    }
    std::string failure;
    if (!WIFEXITED(p->status()) || WEXITSTATUS(p->status()) != 0) {
      failure = describe_status(p->status()) + "\n" + p->output_tail();
    } else if (client && p->output().find("\"error\":") != std::string::npos) {
      failure = "the endpoint answered an error:\n" + p->output_tail();
    } else if (is_assignment(line.text)) {
      std::ofstream(checkout_ / ".docs-test" / "env", std::ios::app) << line.text << "\n";
    }
    finished_.push_back(std::move(p));
    return failure;
  }

  void stop_service() {
    if (!service_) return;
    const std::string stop = stop_with_ctrl_c(*service_, service_text_, timing_);
    if (!stop.empty()) results_[service_result_].failure = stop + "\n" + service_->output_tail();
    finished_.push_back(std::move(service_));
  }

  fs::path checkout_;
  Timing timing_;
  std::vector<LineResult> results_;
  std::unique_ptr<LineProcess> service_;
  std::string service_text_;
  size_t service_result_ = 0;
  std::vector<std::unique_ptr<LineProcess>> finished_;
};

}  // namespace

// The skip rules are kinds, not lines; each is checked on a sample so that none can quietly widen.
TEST(DocsRun, SkipRulesLeaveOutOnlyWhatCannotRunHere) {
  auto reason = [](const std::string& page, const std::string& text, const std::string& marker) {
    return skip_reason(page, {"x:1", text, 0, marker});
  };
  EXPECT_EQ(reason("README.md", "yolo-trainer predict model=best.pt source=images/", ""), "");
  EXPECT_EQ(reason("README.md", "yolo-trainer train data=d.yaml device=cpu", ""), "");
  EXPECT_EQ(
      reason("README.md", "curl -s -X POST localhost:8080/x -d '{\"uri\": \"rtsp://h/s\"}'", ""),
      "");
  EXPECT_EQ(reason("README.md", "yolo-monitor --config runs/quickstart/monitor.yaml --check", ""),
            "");
  EXPECT_NE(reason("README.md", "yolo-trainer train data=d.yaml device=0,1", ""), "");
  EXPECT_NE(reason("README.md", "yolo-trainer predict model=m source=x half=True", ""), "");
  EXPECT_NE(reason("README.md", "sudo systemctl reload yolo-monitor", ""), "");
  EXPECT_NE(reason("README.md", "yolo-trainer val data=coco8.yaml", ""), "");
  EXPECT_NE(reason("README.md", "yolo-trainer predict source=rtsp://cam/live", ""), "");
  EXPECT_NE(reason("README.md", "yolo-trainer train data=... model=...", ""), "");
  EXPECT_NE(reason("README.md", "cmake --build build -j", ""), "");
  EXPECT_EQ(reason("README.md", "curl -s localhost:8080/x", "skip: needs a server"),
            "needs a server");
  EXPECT_NE(reason("docs/benchmarks.md", "yolo-trainer checks", ""), "");
  EXPECT_NE(reason("docs/benchmarks-history.md", "yolo-trainer checks", ""), "");
}

TEST(DocsRun, CommandsThatEndByThemselvesAreWaitedFor) {
  EXPECT_TRUE(ends_by_itself("yolo-trainer val model=best.pt data=d.yaml"));
  EXPECT_TRUE(ends_by_itself("build/bin/yolo-trainer export model=best.pt format=torchscript"));
  EXPECT_TRUE(ends_by_itself("OMP_NUM_THREADS=1 yolo-trainer predict model=m.pt source=images/"));
  EXPECT_TRUE(ends_by_itself("yolo-trainer checks | head"));
  EXPECT_FALSE(ends_by_itself("yolo-trainer train data=d.yaml epochs=100"));
  EXPECT_FALSE(ends_by_itself("yolo-trainer predict model=m.pt source=rtsp://cam/live"));
  EXPECT_FALSE(ends_by_itself("yolo-trainer predict model=m.pt source=0"));
  EXPECT_FALSE(ends_by_itself("yolo-monitor --config c.yaml"));
  EXPECT_FALSE(ends_by_itself("gst-launch-1.0 filesrc location=v.mp4 ! fakesink"));
}

TEST(DocsRun, ServicesAndClientsAreRecognised) {
  EXPECT_EQ(curl_port("curl -s localhost:8080/api/v1/streams"), 8080);
  EXPECT_EQ(curl_port("curl -s http://127.0.0.1:9000/x | jq ."), 9000);
  EXPECT_EQ(curl_port("yolo-monitor --config c.yaml"), std::nullopt);
  EXPECT_TRUE(is_assignment("export GST_PLUGIN_PATH=$PWD/build/gst-plugins"));
  EXPECT_TRUE(is_assignment("PY=/opt/yolo-edge/venv/bin/python"));
  EXPECT_TRUE(is_assignment("export GST_PLUGIN_PATH=$PWD/build/gst-plugins   # from the build"));
  EXPECT_FALSE(is_assignment("RANK=0 yolo-trainer train"));
}

// A page whose command fails, or whose run ignores Ctrl-C, is reported with the line and output.
TEST(DocsRun, AFailingOrUnstoppableLineIsReported) {
  const fs::path dir = kBuild / "test-docs-run" / "sample";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string md =
      "```sh\n"
      "export GREETING=hello\n"
      "test \"$GREETING\" = hello\n"
      "false\n"
      "bash -c 'trap \"\" INT; sleep 600'\n"
      "sleep 600\n"
      "```\n"
      "```sh\n"
      "sudo yolo-monitor --config /etc/yolo-monitor/monitor.yaml\n"
      "curl -s localhost:1/api/v1/streams\n"
      "```\n";
  PageRun run(dir, Timing{2s, 10s, 3s});
  const auto results = run.run("sample.md", docs::shell_lines(md, "sample.md"));
  ASSERT_EQ(results.size(), 7u);
  EXPECT_EQ(results[0].failure, "");
  EXPECT_EQ(results[1].failure, "") << "an exported variable reaches the next line";
  EXPECT_NE(results[2].failure.find("exit code 1"), std::string::npos) << results[2].failure;
  EXPECT_NE(results[3].failure.find("Ctrl-C"), std::string::npos) << results[3].failure;
  EXPECT_EQ(results[4].failure, "") << "a run until Ctrl-C that ends on Ctrl-C passes";
  EXPECT_NE(results[5].skipped, "");
  EXPECT_NE(results[6].skipped, "") << "a client of a service left out is left out too";
}

TEST(DocsRun, EveryCommandInTheDocsRunsAsTyped) {
  const fs::path root = kBuild / "test-docs-run";
  ReaderFiles reader(root / "reader");
  const std::string made = reader.make();
  ASSERT_EQ(made, "");

  std::map<std::string, int> skipped_by_reason;
  std::map<std::string, int> ran_by_page;
  std::string failures;
  for (const fs::path& file : docs::documentation_files(kSource)) {
    const std::string page = fs::relative(file, kSource).string();
    const auto lines = docs::shell_lines(docs::read_text(file), page);
    const bool any_runs = std::any_of(lines.begin(), lines.end(), [&](const docs::ShellLine& l) {
      return skip_reason(page, l).empty();
    });
    if (!any_runs) {
      for (const auto& l : lines) ++skipped_by_reason[skip_reason(page, l)];
      continue;
    }
    const fs::path checkout = root / fs::path(page).stem();
    ASSERT_EQ(make_checkout(checkout), "");
    reader.copy_into(checkout);
    PageRun run(checkout);
    for (const LineResult& r : run.run(page, lines)) {
      if (!r.skipped.empty()) {
        ++skipped_by_reason[r.skipped];
        std::cout << "  skip " << r.where << ": " << r.skipped << "\n";
        continue;
      }
      ++ran_by_page[page];
      std::cout << (r.failure.empty() ? "  ok   " : "  FAIL ") << r.where << ": " << r.text << "\n";
      if (!r.failure.empty()) failures += r.where + ": `" + r.text + "`\n" + r.failure + "\n\n";
    }
  }
  std::cout << "ran:\n";
  for (const auto& [page, n] : ran_by_page) std::cout << "  " << page << ": " << n << "\n";
  std::cout << "left out:\n";
  for (const auto& [why, n] : skipped_by_reason) std::cout << "  " << n << " x " << why << "\n";
  EXPECT_EQ(failures, "");
  // The pages built around commands must keep running some of them.
  for (const char* page : {"README.md", "docs/cli.md", "docs/gst-yolo.md", "docs/monitor.md",
                           "docs/predict.md", "docs/training.md", "docs/troubleshooting.md"})
    EXPECT_GE(ran_by_page[page], 1) << page << " runs none of its commands";
}
