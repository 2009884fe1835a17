#include "yolo/core/progress_bar.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace yolo {
namespace {
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
constexpr int kBarWidth = 20;
}  // namespace

std::string human_bytes(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b < 1e3) return fmt::format("{} B", bytes);
  if (b < 1e6) return fmt::format("{:.1f} kB", b / 1e3);
  if (b < 1e9) return fmt::format("{:.1f} MB", b / 1e6);
  return fmt::format("{:.2f} GB", b / 1e9);
}

ProgressBar::ProgressBar(int64_t total, Options options)
    : total_(total),
      options_(options),
      tty_(isatty(STDERR_FILENO) != 0),
      start_(Clock::now()),
      last_draw_(start_) {}

ProgressBar::ProgressBar(int64_t total, bool enabled)
    : ProgressBar(total, Options{Units::kSteps, enabled, false}) {}

ProgressBar::~ProgressBar() {
  finish();
}

std::string ProgressBar::format_duration(double seconds) {
  const auto s = static_cast<long long>(seconds < 0 ? 0 : seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{:02}:{:02}", s / 60, s % 60);
}

std::string ProgressBar::render(int64_t done, const std::string& prefix, double elapsed_s) const {
  const bool bytes = options_.units == Units::kBytes;
  const double rate = elapsed_s > 0 ? static_cast<double>(done) / elapsed_s : 0;
  std::string rate_text;
  if (bytes) {
    rate_text = fmt::format("{:.1f}MB/s", rate / 1e6);
  } else {
    rate_text = rate >= 1 || rate == 0 ? fmt::format("{:.2f}it/s", rate)
                                       : fmt::format("{:.2f}s/it", 1 / rate);
  }
  auto amount = [bytes](int64_t n) {
    return bytes ? human_bytes(static_cast<uint64_t>(std::max<int64_t>(n, 0))) : std::to_string(n);
  };
  std::string line = prefix;
  if (total_ > 0) {
    const double frac = std::min(1.0, static_cast<double>(done) / static_cast<double>(total_));
    const int filled = static_cast<int>(frac * kBarWidth);
    std::string bar;
    for (int i = 0; i < kBarWidth; ++i) bar += i < filled ? "\u2501" : "\u2500";
    const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0;
    line +=
        fmt::format(" {:>3.0f}% {} {}/{} {} {}<{}", frac * 100, bar, amount(done), amount(total_),
                    rate_text, format_duration(elapsed_s), format_duration(eta));
  } else {
    line += fmt::format(" {} {} {}", amount(done), rate_text, format_duration(elapsed_s));
  }
  return line;
}

void ProgressBar::print_line(bool redraw) {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  std::fprintf(stderr, "%s%s%s", redraw ? "\r\033[K" : "", render(done_, prefix_, elapsed).c_str(),
               redraw ? "" : "\n");
  std::fflush(stderr);
}

void ProgressBar::update(int64_t done, const std::string& prefix) {
  done_ = done;
  prefix_ = prefix;
  if (!options_.enabled || finished_) return;
  if (!tty_) {
    if (!options_.log_quarters || total_ <= 0) return;
    const int quarter = static_cast<int>(4 * std::min(done, total_) / total_);
    if (quarter >= next_quarter_ && quarter < 4) {  // 100 % is the final line's
      next_quarter_ = quarter + 1;
      print_line(false);
    }
    return;
  }
  const auto now = Clock::now();
  if (drawn_ && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  drawn_ = true;
  print_line(true);
}

void ProgressBar::finish(const std::string& suffix) {
  if (finished_) return;
  finished_ = true;
  if (!options_.enabled) return;
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  std::fprintf(stderr, "%s%s%s\n", tty_ ? "\r\033[K" : "", render(done_, prefix_, elapsed).c_str(),
               suffix.c_str());
  std::fflush(stderr);
}

void ProgressBar::abandon() {
  if (finished_) return;
  finished_ = true;
  if (options_.enabled && tty_ && drawn_) {
    std::fputc('\n', stderr);
    std::fflush(stderr);
  }
}

}  // namespace yolo
