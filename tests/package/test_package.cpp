// From the workstation to the box: tools/package.sh builds the `cpu` Debian package, whose
// contents and control fields are checked here, and tools/package-check.sh installs it with apt
// on a fresh Debian 12 root (no source tree, build folder or /opt/yolo-edge there) and runs every
// program as a person on the box would. Both are the commands README's "Deploy to a box" names.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "run_command.h"

namespace fs = std::filesystem;

namespace {

const fs::path kBuild = fs::path(YOLO_BINARY_DIR) / "package-build";
const fs::path kDist = fs::path(YOLO_BINARY_DIR) / "dist";

std::string tail(const std::string& s, size_t n = 6000) {
  return s.size() > n ? s.substr(s.size() - n) : s;
}

std::string quoted(const fs::path& p) {
  return "'" + p.string() + "'";
}

// Built once for the suite: the package path, or empty with the reason in `failure`.
class Package : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (::geteuid() != 0) {
      skip_reason = "needs root (the fresh root is made with mmdebstrap and entered with chroot)";
      return;
    }
    fs::remove_all(kDist);
    const auto r = yolo::testing::run_command("cd " + quoted(YOLO_SOURCE_DIR) +
                                              " && SKIP_SETUP=1 BUILD_DIR=" + quoted(kBuild) +
                                              " DIST=" + quoted(kDist) + " tools/package.sh");
    build_output = r.output;
    if (r.exit_code != 0) {
      failure = "tools/package.sh exited " + std::to_string(r.exit_code) + ":\n" + tail(r.output);
      return;
    }
    for (const auto& e : fs::directory_iterator(kDist)) {
      if (e.path().extension() == ".deb") deb = e.path();
    }
    if (deb.empty()) failure = "tools/package.sh wrote no .deb into " + kDist.string();
  }

  void SetUp() override {
    if (!skip_reason.empty()) GTEST_SKIP() << skip_reason;
    ASSERT_TRUE(failure.empty()) << failure;
  }

  static std::string field(const std::string& name) {
    auto r = yolo::testing::run_command("dpkg-deb --field " + quoted(deb) + " " + name);
    while (!r.output.empty() && r.output.back() == '\n') r.output.pop_back();
    return r.output;
  }

  // The package's files, as dpkg-deb lists them (./usr/bin/yolo-trainer -> /usr/bin/yolo-trainer).
  static std::set<std::string> files() {
    const auto r =
        yolo::testing::run_command("dpkg-deb --fsys-tarfile " + quoted(deb) + " | tar -t");
    std::set<std::string> out;
    std::istringstream in(r.output);
    for (std::string line; std::getline(in, line);) {
      if (line.size() > 1 && line.back() != '/') out.insert(line.substr(1));
    }
    return out;
  }

  static inline std::string skip_reason, failure, build_output;
  static inline fs::path deb;
};

}  // namespace

// The `cpu` flavour: named after it, the programs, plugin, unit and configuration where Debian
// expects them, only LibTorch's CPU part, and Debian's libraries as computed dependencies.
TEST_F(Package, IsALeanCpuPackageWithComputedDependencies) {
  EXPECT_TRUE(std::regex_match(deb.filename().string(),
                               std::regex(R"(yolo-edge_[0-9.]+\+cpu_[a-z0-9]+\.deb)")))
      << deb;
  EXPECT_EQ(field("Package"), "yolo-edge");

  const std::set<std::string> f = files();
  const auto has = [&](const std::string& path) { return f.count(path) > 0; };
  for (const char* path :
       {"/usr/bin/yolo-trainer", "/usr/bin/yolo-monitor",
        "/usr/lib/systemd/system/yolo-monitor.service", "/etc/yolo-monitor/monitor.yaml",
        "/usr/share/yolo-edge/config/trackers/botsort.yaml",
        "/usr/share/yolo-edge/config/monitor.yaml", "/usr/share/doc/yolo-edge/monitor.md",
        "/usr/lib/yolo-edge/libtorch_cpu.so", "/usr/lib/yolo-edge/libc10.so"}) {
    EXPECT_TRUE(has(path)) << "missing from the package: " << path;
  }
  EXPECT_TRUE(std::any_of(f.begin(), f.end(), [](const std::string& p) {
    return std::regex_match(p, std::regex("/usr/lib/[a-z0-9_-]+/gstreamer-1.0/libgstyolo.so"));
  })) << "the plugin is not in the system's gstreamer-1.0 folder";

  // Only what runs: no GPU library, no Python, headers, static archives or build paths.
  for (const std::string& p : f) {
    EXPECT_EQ(p.find("libtorch_cuda"), std::string::npos) << p;
    EXPECT_EQ(p.find("libcudnn"), std::string::npos) << p;
    EXPECT_EQ(p.find("libcublas"), std::string::npos) << p;
    EXPECT_EQ(p.find("libnccl"), std::string::npos) << p;
    EXPECT_FALSE(std::regex_search(p, std::regex(R"((\.py|\.pyc|\.a|\.h|\.hpp|\.cmake)$)"))) << p;
    EXPECT_EQ(p.rfind("/opt", 0), std::string::npos) << p;
    EXPECT_EQ(p.find("/include/"), std::string::npos) << p;
  }

  // Debian's libraries by package name, computed from the binaries (dpkg-shlibdeps), and the
  // GStreamer elements the pipelines create by name.
  const std::string depends = field("Depends");
  for (const char* dep : {"libc6", "libstdc++6", "libgstreamer1.0-0",
                          "libgstreamer-plugins-base1.0-0", "libyaml-cpp0.7", "libopencv-core406",
                          "libmosquitto1", "gstreamer1.0-plugins-good", "gstreamer1.0-libav"}) {
    EXPECT_NE(depends.find(dep), std::string::npos) << dep << " not in Depends: " << depends;
  }
  // The configuration is a conffile: an administrator's edits survive upgrades.
  const auto conffiles = yolo::testing::run_command("dpkg-deb --ctrl-tarfile " + quoted(deb) +
                                                    " | tar -xO ./conffiles");
  EXPECT_NE(conffiles.output.find("/etc/yolo-monitor/monitor.yaml"), std::string::npos)
      << conffiles.output;
}

// The package on a box that has never seen the build: every step of tools/package-check.sh.
TEST_F(Package, InstallsAndRunsOnAFreshDebianRoot) {
  const auto r = yolo::testing::run_command(
      "YOLO_TEST_ASSETS=" + quoted(YOLO_TEST_ASSETS) + " " +
      quoted(fs::path(YOLO_SOURCE_DIR) / "tools" / "package-check.sh") + " " + quoted(deb));
  std::cout << r.output << std::endl;
  for (const char* step : {"install", "libraries", "checks", "inspect", "predict", "pipeline",
                           "monitor-check", "monitor-missing", "monitor", "monitor-stream",
                           "container-build", "container-run", "purge"}) {
    EXPECT_TRUE(std::regex_search(
        r.output, std::regex(std::string("package-check: PASS ") + step + "( |\n|$)")))
        << "step " << step << " did not pass";
  }
  // The `cpu` package knows what it is: no hint about GPU drivers on a box without a GPU.
  EXPECT_NE(r.output.find("CPU part only of a"), std::string::npos) << "yolo-trainer checks";
  EXPECT_EQ(r.output.find("package-check: FAIL"), std::string::npos);
  EXPECT_EQ(r.exit_code, 0);
}
