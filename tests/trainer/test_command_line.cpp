// The Ultralytics-style command line: modes, tasks, key=value, bare keys, normalisations.
#include <gtest/gtest.h>

#include "yolo/trainer/settings/command_line.h"
#include "yolo/trainer/settings/config.h"

using yolo::CommandLine;
using yolo::ConfigError;
using yolo::parse_command_line;

TEST(CommandLine, ModeTaskAndPairs) {
  CommandLine c = parse_command_line({"detect", "train", "data=coco8.yaml", "epochs=3", "amp"});
  EXPECT_EQ(c.task, "detect");
  EXPECT_EQ(c.mode, "train");
  ASSERT_EQ(c.overrides.size(), 3u);
  EXPECT_EQ(c.overrides[0], (std::pair<std::string, std::string>{"data", "coco8.yaml"}));
  EXPECT_EQ(c.overrides[2], (std::pair<std::string, std::string>{"amp", "true"}));
  EXPECT_TRUE(c.warnings.empty());
}

TEST(CommandLine, ValuesMayContainEquals) {
  CommandLine c = parse_command_line({"predict", "source=rtsp://h/x?a=b"});
  EXPECT_EQ(c.overrides[0].second, "rtsp://h/x?a=b");
}

TEST(CommandLine, DashesAndTrailingCommasAreNormalisedWithWarnings) {
  CommandLine c = parse_command_line({"val", "--batch=8,", "--plots"});
  EXPECT_EQ(c.overrides[0], (std::pair<std::string, std::string>{"batch", "8"}));
  EXPECT_EQ(c.overrides[1], (std::pair<std::string, std::string>{"plots", "true"}));
  EXPECT_EQ(c.warnings.size(), 3u);
}

TEST(CommandLine, HelpForModes) {
  EXPECT_TRUE(parse_command_line({"help"}).help);
  CommandLine c = parse_command_line({"train", "help"});
  EXPECT_TRUE(c.help);
  EXPECT_EQ(c.mode, "train");
}

TEST(CommandLine, UnknownWordsSuggest) {
  try {
    parse_command_line({"trian"});
    FAIL() << "accepted 'trian'";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'train'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_command_line({"segment", "train"}), ConfigError);
  EXPECT_THROW(parse_command_line({"train", "val"}), ConfigError);
  EXPECT_THROW(parse_command_line({"train", "=3"}), ConfigError);
}
