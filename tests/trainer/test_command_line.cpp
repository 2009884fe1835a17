// The Ultralytics-style command line: modes, tasks, key=value, bare keys, normalisations.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "settings/help.h"
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

// Keys a mode does not read (#68): each one given draws one warning naming the modes that read
// it, whatever the mode; keys the mode reads, and those every mode reads, draw none.
TEST(UnreadKeys, EachModeNamesTheKeysItIgnoresAndWhoReadsThem) {
  yolo::Config cfg;
  cfg.apply_text_overrides({{"gt", "gt.txt"},
                            {"persist", "True"},
                            {"lr0", "0.02"},
                            {"format", "torchscript"},
                            {"conf", "0.3"},
                            {"threads", "1"},
                            {"images", "20"},
                            {"seed", "3"},
                            {"half", "False"},
                            {"classes", "0"}});
  const auto warned = [&](const std::string& mode) {
    std::set<std::string> keys;
    for (const std::string& w : yolo::unread_key_warnings(cfg, mode)) {
      keys.insert(w.substr(0, w.find('=')));
      EXPECT_NE(w.find("not by " + mode), std::string::npos) << w;
      EXPECT_NE(w.find("yolo-trainer " + mode + " help"), std::string::npos) << w;
    }
    return keys;
  };
  using Keys = std::set<std::string>;
  EXPECT_EQ(warned("predict"), (Keys{"gt", "persist", "lr0", "format", "images"}));
  EXPECT_EQ(warned("val"), (Keys{"gt", "persist", "lr0", "format", "images"}));
  EXPECT_EQ(warned("track"), (Keys{"lr0", "format", "images"}));
  EXPECT_EQ(warned("train"), (Keys{"gt", "persist", "format", "images", "classes"}));
  EXPECT_EQ(warned("export"), (Keys{"gt", "persist", "lr0", "conf", "images", "classes"}));
  EXPECT_EQ(warned("synth"), (Keys{"gt", "persist", "lr0", "format", "conf", "half", "classes"}));
  // Every mode's help lists the keys of the sections it reads (synth's once listed none).
  for (const char* mode_and_key : {"synth images", "export format", "track persist", "val split"}) {
    const std::string text = mode_and_key;
    const std::string mode = text.substr(0, text.find(' ')), key = text.substr(text.find(' ') + 1);
    EXPECT_NE(yolo::format_help(cfg.schema(), mode).find("\n  " + key + " "), std::string::npos)
        << mode << " help does not list " << key;
  }
  // Every key's line keeps its default apart from its text, however long the default
  // (synth's dir=datasets/synthetic once ran into "synth: output folder").
  for (const char* mode : {"train", "val", "predict", "track", "export", "synth"}) {
    const std::string help = yolo::format_help(cfg.schema(), mode);
    for (const auto& k : cfg.schema().keys()) {
      if (k.default_value.IsNull()) continue;
      const size_t at = help.find("\n  " + k.name + " ");
      if (at == std::string::npos) continue;
      const std::string line = help.substr(at + 1, help.find('\n', at + 1) - at - 1);
      EXPECT_EQ(line.find(" " + k.help), line.size() - k.help.size() - 1)
          << mode << " help runs the default into the text: " << line;
    }
  }
  // The warning says who reads the key.
  const auto predict = yolo::unread_key_warnings(cfg, "predict");
  EXPECT_TRUE(std::any_of(predict.begin(), predict.end(), [](const std::string& w) {
    return w.rfind("gt= is read by track and not by predict", 0) == 0;
  }));
}
