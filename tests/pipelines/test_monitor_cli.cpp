// yolo-monitor's command line as typed wrong: every unknown option or stray argument is named,
// with the nearest valid option, and a missing --config says what to pass. Exit code 2 (usage).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "run_command.h"
#include "test_files.h"

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

// --check opens every file the configuration names, as the start does (#57): a tracker file and
// the MQTT password, CA and key files that do not exist (or are folders) fail the check naming
// each; a password file other users can read is warned about.
TEST(MonitorCli, CheckOpensEveryFileTheConfigurationNames) {
  yolo::testing::TempDir dir("monitor_check_files");
  const std::string d = dir.path.string();
  std::filesystem::create_directories(dir.path / "a_folder");
  const auto check = [&](const std::string& tracker, const std::string& password_file,
                         const std::string& tls) {
    const std::string path = d + "/monitor.yaml";
    yolo::testing::write_file(
        path, "model: " + d + "/missing.torchscript\n" +
                  (tracker.empty() ? "" : "tracker: " + tracker + "\n") +
                  "streams:\n  - {id: cam1, uri: /v.mp4}\noutputs:\n  mqtt:\n    url: " +
                  (tls.empty() ? "mqtt" : "mqtts") + "://127.0.0.1:1883\n    username: box\n" +
                  "    password_file: " + password_file + "\n" + tls);
    return monitor("--config " + path + " --check");
  };
  const std::string secret = d + "/password";
  yolo::testing::write_file(secret, "s3cret\n");
  ::chmod(secret.c_str(), 0600);

  auto r = check(d + "/missing_tracker.yaml", secret, "");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("missing_tracker.yaml: no such file"), std::string::npos) << r.output;

  r = check("", d + "/missing_password", "");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("outputs.mqtt: MQTT publisher: password_file '" + d +
                          "/missing_password' cannot be read"),
            std::string::npos)
      << r.output;

  r = check("", d + "/a_folder", "");
  EXPECT_NE(r.output.find("password_file '" + d + "/a_folder' is a folder"), std::string::npos)
      << r.output;

  ::chmod(secret.c_str(), 0644);
  r = check("", secret, "    tls: {ca: " + d + "/missing_ca.pem}\n");
  EXPECT_NE(r.output.find("password_file '" + secret + "' can be read by other users"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("chmod 600"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("tls.ca_file '" + d + "/missing_ca.pem' cannot be read"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("s3cret"), std::string::npos) << "never the secret itself";

  ::chmod(secret.c_str(), 0600);
  r = check("", secret, "");
  EXPECT_EQ(r.output.find("can be read by other users"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("outputs.mqtt"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("missing.torchscript"), std::string::npos) << "the model still fails";
}
