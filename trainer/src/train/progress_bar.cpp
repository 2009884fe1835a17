#include "yolo/trainer/progress_bar.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace yolo {
namespace {
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
constexpr int kBarWidth = 20;
}  // namespace

ProgressBar::ProgressBar(int64_t total, bool enabled)
    : total_(total),
      enabled_(enabled),
      tty_(isatty(STDERR_FILENO) != 0),
      start_(Clock::now()),
      last_draw_(start_) {}

ProgressBar::~ProgressBar() {
  finish();
}

std::string ProgressBar::format_duration(double seconds) {
  const auto s = static_cast<long long>(seconds < 0 ? 0 : seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{:02}:{:02}", s / 60, s % 60);
}

std::string ProgressBar::render(int64_t done, const std::string& prefix, double elapsed_s) const {
  std::string line = prefix;
  const double rate = elapsed_s > 0 ? static_cast<double>(done) / elapsed_s : 0;
  const std::string rate_text = rate >= 1 || rate == 0 ? fmt::format("{:.2f}it/s", rate)
                                                       : fmt::format("{:.2f}s/it", 1 / rate);
  if (total_ > 0) {
    const double frac = std::min(1.0, static_cast<double>(done) / static_cast<double>(total_));
    const int filled = static_cast<int>(frac * kBarWidth);
    std::string bar;
    for (int i = 0; i < kBarWidth; ++i) bar += i < filled ? "\u2501" : "\u2500";
    const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0;
    line += fmt::format(" {:>3.0f}% {} {}/{} {} {}<{}", frac * 100, bar, done, total_, rate_text,
                        format_duration(elapsed_s), format_duration(eta));
  } else {
    line += fmt::format(" {} {} {}", done, rate_text, format_duration(elapsed_s));
  }
  return line;
}

void ProgressBar::update(int64_t done, const std::string& prefix) {
  done_ = done;
  prefix_ = prefix;
  if (!enabled_ || !tty_) return;
  const auto now = Clock::now();
  if (drawn_ && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  drawn_ = true;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr, "\r\033[K%s", render(done_, prefix_, elapsed).c_str());
  std::fflush(stderr);
}

void ProgressBar::finish(const std::string& suffix) {
  if (finished_) return;
  finished_ = true;
  if (!enabled_) return;
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  std::fprintf(stderr, "%s%s%s\n", tty_ ? "\r\033[K" : "", render(done_, prefix_, elapsed).c_str(),
               suffix.c_str());
  std::fflush(stderr);
}

}  // namespace yolo
