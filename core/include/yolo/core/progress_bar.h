// One-line progress bars on stderr, Ultralytics-style: a prefix (epoch, memory, losses, a file
// name, ...), the percentage, a bar, "k/n", rate and elapsed<ETA, for steps or for bytes. On a
// terminal the line is redrawn in place (at most every 100 ms); otherwise (logs, CI) only the
// final state of each bar is printed, plus, when asked, a line at 25, 50 and 75 % for work that
// may run for minutes with no other output (downloads).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace yolo {

// "812 B", "2.9 kB", "41.3 MB", "1.20 GB" (decimal units, like the MB/s rate).
std::string human_bytes(uint64_t bytes);

class ProgressBar {
 public:
  enum class Units { kSteps, kBytes };
  struct Options {
    Units units = Units::kSteps;
    bool enabled = true;
    bool log_quarters = false;  // without a terminal: also print at 25, 50 and 75 %
  };

  // total: number of steps or bytes; 0 = unknown (no bar, no ETA).
  ProgressBar(int64_t total, Options options);
  explicit ProgressBar(int64_t total, bool enabled = true);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // The total, once it is known (a download learns it from the first response).
  void set_total(int64_t total) { total_ = total; }
  // Sets the text left of the percentage and the amount done.
  void update(int64_t done, const std::string& prefix);
  // Prints the final line (once); called by the destructor if not called before.
  void finish(const std::string& suffix = "");
  // Ends the bar without a final line, for work that failed (its error says the rest); on a
  // terminal the last drawn state stays on its line.
  void abandon();

  // "1:02:03" / "02:03".
  static std::string format_duration(double seconds);
  // The line as it is drawn, for tests.
  std::string render(int64_t done, const std::string& prefix, double elapsed_s) const;

 private:
  using Clock = std::chrono::steady_clock;
  void print_line(bool redraw);

  int64_t total_, done_ = 0;
  Options options_;
  bool tty_, finished_ = false, drawn_ = false;
  int next_quarter_ = 1;
  std::string prefix_;
  Clock::time_point start_, last_draw_;
};

}  // namespace yolo
