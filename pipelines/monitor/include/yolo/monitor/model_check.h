// What `yolo-monitor --check` verifies beyond the configuration's structure: every model a
// stream would run loads, and every class a stream keeps exists in its model. These problems are
// permanent (retrying a camera cannot fix them), so they fail the check instead of surfacing as
// a stream that retries forever.
#pragma once

#include <string>
#include <vector>

#include "yolo/monitor/monitor_config.h"

namespace yolo::monitor {

// One line per problem, naming the stream, the model file and the fix; empty when all is well.
// Each distinct model file is loaded once, on the CPU.
std::vector<std::string> check_models(const MonitorConfig& config);

// Every other file the configuration names, opened as the start opens it: for outputs.mqtt the
// url, topic and the password, CA, certificate and key files (a secret other users can read is
// warned about). One line per problem. Tracker files are checked when the configuration is read.
std::vector<std::string> check_referenced_files(const MonitorConfig& config);

}  // namespace yolo::monitor
