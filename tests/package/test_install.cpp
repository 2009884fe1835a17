// `cmake --install build --prefix DIR`, as README's "Building by hand" describes it: every file it
// writes is inside DIR (nothing in /etc or /usr/local), and the installed programs start with a
// clean environment (no LD_LIBRARY_PATH, no GST_PLUGIN_PATH): they find the build machine's
// LibTorch through their install RPATH and the plugin next to them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "run_command.h"

namespace fs = std::filesystem;

namespace {

std::string quoted(const fs::path& p) {
  return "'" + p.string() + "'";
}

}  // namespace

TEST(Install, PrefixHoldsEverythingAndTheProgramsRunFromIt) {
  const fs::path prefix = fs::path(YOLO_BINARY_DIR) / "test-install" / "inst";
  fs::remove_all(prefix.parent_path());
  const auto r = yolo::testing::run_command("cmake --install " + quoted(YOLO_BINARY_DIR) +
                                            " --prefix " + quoted(prefix));
  ASSERT_EQ(r.exit_code, 0) << r.output;

  // install_manifest.txt lists every file the install wrote.
  std::ifstream manifest(fs::path(YOLO_BINARY_DIR) / "install_manifest.txt");
  ASSERT_TRUE(manifest) << "no install_manifest.txt";
  int files = 0;
  for (std::string line; std::getline(manifest, line);) {
    if (line.empty()) continue;
    ++files;
    EXPECT_EQ(line.rfind(prefix.string() + "/", 0), 0u) << "written outside the prefix: " << line;
  }
  EXPECT_GT(files, 10);
  for (const char* path : {"bin/yolo-trainer", "bin/yolo-monitor", "etc/yolo-monitor/monitor.yaml",
                           "lib/systemd/system/yolo-monitor.service"}) {
    EXPECT_TRUE(fs::exists(prefix / path)) << path;
  }

  const auto help =
      yolo::testing::run_command("env -i " + quoted(prefix / "bin/yolo-monitor") + " --help");
  EXPECT_EQ(help.exit_code, 0) << help.output;
  const auto checks =
      yolo::testing::run_command("env -i HOME=" + quoted(prefix.parent_path()) + " " +
                                 quoted(prefix / "bin/yolo-trainer") + " checks");
  EXPECT_EQ(checks.exit_code, 0) << checks.output;
  EXPECT_NE(checks.output.find("Ready"), std::string::npos) << checks.output;
  // The installed starting configuration is valid as it is.
  const auto check = yolo::testing::run_command(
      "env -i HOME=" + quoted(prefix.parent_path()) + " " + quoted(prefix / "bin/yolo-monitor") +
      " --config " + quoted(prefix / "etc/yolo-monitor/monitor.yaml") + " --check");
  EXPECT_EQ(check.exit_code, 0) << check.output;
}
