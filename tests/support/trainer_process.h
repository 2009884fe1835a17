// Helpers of the fault tests that drive yolo-trainer: a tiny dataset to train on, and the trainer
// started as a child process that the test can signal (SIGTERM, SIGKILL) while it runs, unlike
// run_command, which waits for the end.
#pragma once

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "run_command.h"

namespace yolo::testing {

// A tiny synthetic set in dir/data (8 images of 64 px, 2 classes): enough for a few quick epochs.
inline CommandResult make_tiny_dataset(const std::string& bin, const std::filesystem::path& dir) {
  return run_command("cd '" + dir.string() + "' && " + bin +
                     " synth dir=data images=8 imgsz=64 nc=2 seed=0");
}

// `bin args...` in `dir`, stdout and stderr into dir/`log`; returns the child's pid (or -1).
inline pid_t start_process(const std::string& bin, const std::filesystem::path& dir,
                           const std::vector<std::string>& args, const std::string& log) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  if (::chdir(dir.c_str()) != 0) std::_Exit(126);
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ::dup2(fd, 1);
  ::dup2(fd, 2);
  std::vector<char*> argv{const_cast<char*>(bin.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(bin.c_str(), argv.data());
  std::_Exit(127);
}

}  // namespace yolo::testing
