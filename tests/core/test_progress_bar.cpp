// The one progress bar (core): what a line shows for steps and for bytes, and what reaches a log
// (not a terminal: ctest's stderr) with and without the quarter lines.
#include "yolo/core/progress_bar.h"

#include <gtest/gtest.h>

#include <string>

namespace {

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace

TEST(ProgressBar, FormatsDurationsAndBytes) {
  EXPECT_EQ(yolo::ProgressBar::format_duration(0), "00:00");
  EXPECT_EQ(yolo::ProgressBar::format_duration(125.4), "02:05");
  EXPECT_EQ(yolo::ProgressBar::format_duration(3723), "1:02:03");
  EXPECT_EQ(yolo::human_bytes(812), "812 B");
  EXPECT_EQ(yolo::human_bytes(2900), "2.9 kB");
  EXPECT_EQ(yolo::human_bytes(41'300'000), "41.3 MB");
  EXPECT_EQ(yolo::human_bytes(1'200'000'000), "1.20 GB");
}

TEST(ProgressBar, StepsLineShowsCountRateAndEta) {
  yolo::ProgressBar bar(8, /*enabled=*/false);
  // 2 of 8 steps in 4 s: 0.5 it/s shown as seconds per step, 12 s left.
  const std::string line = bar.render(2, "1/60", 4.0);
  EXPECT_EQ(line.rfind("1/60  25% ", 0), 0u) << line;
  EXPECT_NE(line.find(" 2/8 2.00s/it 00:04<00:12"), std::string::npos) << line;
  // Unknown total: no percentage, no ETA.
  yolo::ProgressBar open(0, false);
  EXPECT_EQ(open.render(30, "scan", 10.0), "scan 30 3.00it/s 00:10");
}

TEST(ProgressBar, BytesLineShowsSizesAndMegabytesPerSecond) {
  yolo::ProgressBar bar(0, {yolo::ProgressBar::Units::kBytes, false, false});
  EXPECT_EQ(bar.render(3'000'000, "coco8.zip", 2.0), "coco8.zip 3.0 MB 1.5MB/s 00:02");
  bar.set_total(12'000'000);
  const std::string line = bar.render(3'000'000, "coco8.zip", 2.0);
  EXPECT_NE(line.find(" 25% "), std::string::npos) << line;
  EXPECT_NE(line.find(" 3.0 MB/12.0 MB 1.5MB/s 00:02<00:06"), std::string::npos) << line;
}

// Without a terminal a bar prints its final line only, or with log_quarters also one line at
// each of 25, 50 and 75 %; a disabled bar prints nothing; abandon() prints no final state.
TEST(ProgressBar, LogLinesWithoutATerminal) {
  auto run = [](yolo::ProgressBar::Options o, bool abandon) {
    testing::internal::CaptureStderr();
    {
      yolo::ProgressBar bar(100, o);
      for (int done : {10, 30, 31, 60, 80, 99}) bar.update(done, "work");
      if (abandon) bar.abandon();
    }
    return testing::internal::GetCapturedStderr();
  };
  using Units = yolo::ProgressBar::Units;
  const std::string plain = run({Units::kSteps, true, false}, false);
  EXPECT_EQ(count_lines(plain), 1) << plain;
  EXPECT_NE(plain.find("99/100"), std::string::npos) << plain;
  const std::string quarters = run({Units::kSteps, true, true}, false);
  EXPECT_EQ(count_lines(quarters), 4) << quarters;
  EXPECT_NE(quarters.find("30/100"), std::string::npos) << quarters;
  EXPECT_NE(quarters.find("60/100"), std::string::npos) << quarters;
  EXPECT_NE(quarters.find("80/100"), std::string::npos) << quarters;
  EXPECT_EQ(run({Units::kSteps, false, true}, false), "");
  EXPECT_EQ(count_lines(run({Units::kSteps, true, true}, true)), 3);
}
