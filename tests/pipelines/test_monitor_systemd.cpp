// The unit as the build configures it from systemd/yolo-monitor.service.in: `systemd-analyze
// verify` accepts it (on a copy whose ExecStart points at a binary that exists here, since verify
// checks that), and it keeps the settings the service depends on. Skipped with a message where
// systemd-analyze is not installed.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "run_command.h"
#include "test_files.h"

namespace fs = std::filesystem;

namespace {

const fs::path kUnit = fs::path(YOLO_BINARY_DIR) / "systemd" / "yolo-monitor.service";

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

// The hardening and lifecycle settings docs/monitor.md promises are in the unit.
TEST(SystemdUnit, HasTheRequiredSettings) {
  const std::string unit = yolo::testing::read_file(kUnit);
  ASSERT_FALSE(unit.empty()) << kUnit;
  for (const char* line :
       {"Type=notify", "Restart=on-failure", "DynamicUser=yes", "ProtectSystem=strict",
        "CapabilityBoundingSet=", "NoNewPrivileges=yes", "StateDirectory=yolo-monitor",
        "LogsDirectory=yolo-monitor", "DeviceAllow=/dev/kfd rw", "DeviceAllow=char-drm rw",
        "SupplementaryGroups=render video", "ExecReload=/bin/kill -HUP $MAINPID",
        "ReadWritePaths=/var/lib/yolo-monitor /var/log/yolo-monitor",
        "RestartPreventExitStatus=2"}) {
    EXPECT_TRUE(has_line(unit, line)) << "missing: " << line;
  }
  EXPECT_TRUE(std::regex_search(unit, std::regex("\nWatchdogSec=[1-9][0-9]*s\n")));
  // The program where this build installs it, not a path typed into the file.
  EXPECT_TRUE(has_line(unit, "ExecStart=" YOLO_INSTALL_BINDIR
                             "/yolo-monitor --config /etc/yolo-monitor/monitor.yaml"))
      << unit;
  EXPECT_EQ(unit.find('@'), std::string::npos) << "an unconfigured @VARIABLE@ is left: " << unit;
}

// systemd-analyze verify reports nothing (it prints problems and exits non-zero on errors).
TEST(SystemdUnit, VerifyPasses) {
  if (yolo::testing::run_command("command -v systemd-analyze").exit_code != 0) {
    GTEST_SKIP() << "systemd-analyze is not installed (Debian package 'systemd'); the unit is "
                    "not verified";
  }
  yolo::testing::TempDir dir("systemd_verify");
  std::string unit = yolo::testing::read_file(kUnit);
  // The real binary is not built yet on every machine; verify only needs an executable file.
  unit = std::regex_replace(unit, std::regex("ExecStart=" YOLO_INSTALL_BINDIR "/yolo-monitor"),
                            "ExecStart=/bin/true");
  ASSERT_NE(unit.find("ExecStart=/bin/true --config"), std::string::npos);
  const fs::path copy = dir.path / "yolo-monitor.service";
  yolo::testing::write_file(copy, unit);
  const auto r =
      yolo::testing::run_command("systemd-analyze verify --man=no '" + copy.string() + "'");
  if (r.output.find("Failed to initialize manager") != std::string::npos ||
      r.output.find("Failed to setup working directory") != std::string::npos) {
    GTEST_SKIP() << "systemd-analyze cannot run here (no systemd manager environment):\n"
                 << r.output;
  }
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // Warnings do not change the exit code; any line about our unit is a problem to fix.
  EXPECT_EQ(r.output.find("yolo-monitor.service"), std::string::npos) << r.output;
}
