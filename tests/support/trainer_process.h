// Helpers of the fault tests that drive yolo-trainer: a tiny dataset to train on, and the trainer
// started as a child process that the test can signal (SIGTERM, SIGKILL) while it runs, unlike
// run_command, which waits for the end.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
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

// The tiny run the fault tests train and interrupt: yolov8n at 64 px on make_tiny_dataset's set,
// written to dir/runs/`name`.
inline std::vector<std::string> tiny_train_args(int epochs, const std::string& name = "train") {
  return {"train",
          "model=yolov8n.yaml",
          "data=data/data.yaml",
          "imgsz=64",
          "epochs=" + std::to_string(epochs),
          "batch=2",
          "device=cpu",
          "plots=False",
          "project=runs",
          "name=" + name,
          "exist_ok=True"};
}

// "bin arg arg ..." for run_command (the args hold no spaces or quotes).
inline std::string command_line(const std::string& bin, const std::vector<std::string>& args) {
  std::string line = "'" + bin + "'";
  for (const std::string& a : args) line += " " + a;
  return line;
}

// Waits (up to `seconds`) until `file` exists; whether it does.
inline bool wait_for_file(const std::filesystem::path& file, int seconds = 120) {
  for (int i = 0; i < seconds * 10 && !std::filesystem::exists(file); ++i) ::usleep(100 * 1000);
  return std::filesystem::exists(file);
}

// Blocks until `count` files whose names start with `prefix` have been created in the folder that
// `watch` (an inotify descriptor with IN_CREATE) watches, e.g. ".last.pt.tmp." when a save begins;
// every match in a read counts (two saves can arrive in one). False if the descriptor fails or
// nothing matching is created for `timeout_s` seconds.
inline bool wait_for_created(int watch, const std::string& prefix, int count = 1,
                             int timeout_s = 600) {
  alignas(inotify_event) char buf[4096];
  int seen = 0;
  while (seen < count) {
    pollfd ready{watch, POLLIN, 0};
    if (::poll(&ready, 1, timeout_s * 1000) <= 0) return false;
    const ssize_t n = ::read(watch, buf, sizeof buf);
    if (n <= 0) return false;
    for (char* p = buf; p < buf + n;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(p);
      if (ev->len > 0 && std::string(ev->name).rfind(prefix, 0) == 0) ++seen;
      p += sizeof(inotify_event) + ev->len;
    }
  }
  return true;
}

}  // namespace yolo::testing
