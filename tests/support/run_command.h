// Runs a shell command line for the tests that drive the yolo-trainer executable as a user would:
// its exit code and everything it printed (stdout and stderr together).
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace yolo::testing {

struct CommandResult {
  int exit_code = -1;  // -1 when the command could not start or did not exit normally
  std::string output;
};

inline CommandResult run_command(const std::string& command_line) {
  CommandResult r;
  FILE* pipe = popen((command_line + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace yolo::testing
