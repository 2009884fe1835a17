// A one-line progress bar on stderr, Ultralytics-style: a prefix of fixed columns (epoch, memory,
// losses, ...), "k/n", a bar, rate and ETA. On a terminal it is redrawn in place (at most every
// 100 ms); otherwise (logs, CI) only the final state of each bar is printed, so logs stay short.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace yolo {

class ProgressBar {
 public:
  // total: number of steps; 0 = unknown.
  ProgressBar(int64_t total, bool enabled = true);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Sets the text left of the counter and the number of completed steps.
  void update(int64_t done, const std::string& prefix);
  // Prints the final line (once); called by the destructor if not called before.
  void finish(const std::string& suffix = "");

  // "1:02:03" / "02:03".
  static std::string format_duration(double seconds);
  // The line as it is drawn, for tests.
  std::string render(int64_t done, const std::string& prefix, double elapsed_s) const;

 private:
  using Clock = std::chrono::steady_clock;
  int64_t total_, done_ = 0;
  bool enabled_, tty_, finished_ = false, drawn_ = false;
  std::string prefix_;
  Clock::time_point start_, last_draw_;
};

}  // namespace yolo
