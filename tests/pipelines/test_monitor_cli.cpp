// yolo-monitor's command line as typed wrong: every unknown option or stray argument is named,
// with the nearest valid option, and a missing --config says what to pass. Exit code 2 (usage).
#include <gtest/gtest.h>

#include <string>

#include "run_command.h"

namespace {

yolo::testing::CommandResult monitor(const std::string& args) {
  return yolo::testing::run_command(std::string(YOLO_MONITOR_BIN) + " " + args);
}

}  // namespace

TEST(MonitorCli, UnknownOptionsAreNamedWithTheNearestValidOne) {
  auto r = monitor("--confg config/monitor.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown option '--confg'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("did you mean '--config'"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("is required"), std::string::npos) << "the typo, not its consequence\n"
                                                             << r.output;

  r = monitor("--config " YOLO_SOURCE_DIR "/config/monitor.yaml --chek");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown option '--chek'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("did you mean '--check'"), std::string::npos) << r.output;

  // Nothing near: the valid options are listed.
  r = monitor("--zzzzzzzz");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown option '--zzzzzzzz'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--config"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--check"), std::string::npos) << r.output;

  // The value of an option given as `--confg=file`: the option is what is named.
  r = monitor("--confg=x.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown option '--confg'"), std::string::npos) << r.output;
}

TEST(MonitorCli, StrayArgumentsAndAMissingConfigSayWhatToType) {
  auto r = monitor("monitor.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unexpected argument 'monitor.yaml'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--config monitor.yaml"), std::string::npos) << r.output;

  r = monitor("");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--config is required"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("yolo-monitor --config"), std::string::npos) << r.output;

  r = monitor("--help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--check"), std::string::npos) << r.output;
  r = monitor("--version");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("yolo-monitor "), std::string::npos) << r.output;
}

// The shipped reference configuration is valid but for its model, a file the user provides: the
// check says that file is missing (nothing is downloaded) and finds nothing else to fix.
TEST(MonitorCli, ShippedReferenceConfigLacksOnlyItsModel) {
  const auto r = monitor("--config " YOLO_SOURCE_DIR "/config/monitor.yaml --check");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  size_t errors = 0, about_the_model = 0;
  for (size_t at = r.output.find("ERROR:"); at != std::string::npos;
       at = r.output.find("ERROR:", at + 1)) {
    ++errors;
    const std::string line = r.output.substr(at, r.output.find('\n', at) - at);
    if (line.find("best.torchscript' does not exist") != std::string::npos) ++about_the_model;
  }
  EXPECT_GT(errors, 0u) << r.output;
  EXPECT_EQ(about_the_model, errors) << r.output;
}
