// Tracker settings: the built-in files carry Ultralytics' defaults, and every kind of bad file
// is refused with a message that names the file, the key and what is allowed.
#include <gtest/gtest.h>

#include <string>

#include "test_files.h"
#include "yolo/core/error.h"
#include "yolo/tracking/tracker_config.h"

using namespace yolo::tracking;

namespace {

// The message of the UsageError that parsing `yaml` throws ("" when it throws none).
std::string refusal(const std::string& yaml) {
  try {
    parse_tracker_config(yaml, "my.yaml");
  } catch (const yolo::UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(TrackerConfig, BuiltinsCarryUltralyticsDefaults) {
  const TrackerConfig bot = load_tracker_config("botsort.yaml");
  EXPECT_EQ(bot.type, TrackerType::kBotSort);
  EXPECT_DOUBLE_EQ(bot.track_high_thresh, 0.25);
  EXPECT_DOUBLE_EQ(bot.track_low_thresh, 0.1);
  EXPECT_DOUBLE_EQ(bot.new_track_thresh, 0.25);
  EXPECT_EQ(bot.track_buffer, 30);
  EXPECT_DOUBLE_EQ(bot.match_thresh, 0.8);
  EXPECT_TRUE(bot.fuse_score);
  EXPECT_EQ(bot.gmc_method, GmcMethod::kSparseOptFlow);
  EXPECT_DOUBLE_EQ(bot.proximity_thresh, 0.5);
  EXPECT_DOUBLE_EQ(bot.appearance_thresh, 0.8);
  EXPECT_FALSE(bot.with_reid);
  EXPECT_NE(bot.source.find("built in"), std::string::npos);
  const TrackerConfig byte = load_tracker_config("bytetrack.yaml");
  EXPECT_EQ(byte.type, TrackerType::kByteTrack);
  EXPECT_EQ(byte.track_buffer, 30);
}

TEST(TrackerConfig, AUserFileWinsAndMissingKeysTakeDefaults) {
  yolo::testing::TempDir dir("tracker_config");
  const auto path = dir.path / "slow.yaml";
  yolo::testing::write_file(path, "tracker_type: bytetrack\ntrack_buffer: 90\nfuse_score: false\n");
  const TrackerConfig c = load_tracker_config(path.string());
  EXPECT_EQ(c.type, TrackerType::kByteTrack);
  EXPECT_EQ(c.track_buffer, 90);
  EXPECT_FALSE(c.fuse_score);
  EXPECT_DOUBLE_EQ(c.match_thresh, 0.8);
  EXPECT_EQ(c.source, path.string());
  // As a Windows editor saves it: a byte-order mark and CRLF line ends (#57).
  yolo::testing::write_file(path, "\xEF\xBB\xBFtracker_type: bytetrack\r\ntrack_buffer: 60\r\n");
  EXPECT_EQ(load_tracker_config(path.string()).track_buffer, 60);
}

TEST(TrackerConfig, UnknownKeySuggestsTheNearest) {
  const std::string m = refusal("tracker_type: botsort\ntrack_bufer: 30\n");
  EXPECT_NE(m.find("my.yaml"), std::string::npos) << m;
  EXPECT_NE(m.find("track_bufer"), std::string::npos) << m;
  EXPECT_NE(m.find("did you mean 'track_buffer'"), std::string::npos) << m;
}

TEST(TrackerConfig, ValuesOutOfRangeOrOfTheWrongTypeNameTheKey) {
  EXPECT_NE(refusal("tracker_type: botsort\nmatch_thresh: 1.5\n")
                .find("match_thresh: 1.5 is "
                      "outside 0..1"),
            std::string::npos);
  EXPECT_NE(refusal("tracker_type: botsort\ntrack_high_thresh: high\n")
                .find("track_high_thresh: 'high' is not a number"),
            std::string::npos);
  EXPECT_NE(refusal("tracker_type: botsort\ntrack_buffer: 2.5\n").find("track_buffer"),
            std::string::npos);
  EXPECT_NE(refusal("tracker_type: botsort\ntrack_buffer: 2.5\n")
                .find("track_buffer: '2.5' is not a whole number"),
            std::string::npos);
  EXPECT_NE(refusal("tracker_type: botsort\ntrack_buffer: -1\n")
                .find("track_buffer: -1 is too small (at least 0)"),
            std::string::npos);
  // Too many digits: too large, with the range (#57), not "not a whole number".
  EXPECT_NE(refusal("tracker_type: botsort\ntrack_buffer: 99999999999999999999\n")
                .find("track_buffer: 99999999999999999999 is too large (at most 1000000)"),
            std::string::npos);
  EXPECT_NE(refusal("tracker_type: botsort\nfuse_score: 1\n")
                .find("fuse_score: '1' is not True "
                      "or False"),
            std::string::npos);
  EXPECT_NE(refusal("tracker_type: botsort\ngmc_method: optflow\n").find("sparseOptFlow, orb"),
            std::string::npos);
  EXPECT_NE(refusal("tracker_type: botsort\ntrack_low_thresh: 0.5\n").find("second association"),
            std::string::npos);
}

TEST(TrackerConfig, UnsupportedChoicesSayWhy) {
  EXPECT_NE(refusal("tracker_type: botsort\nwith_reid: True\n").find("appearance (ReID) model"),
            std::string::npos);
  EXPECT_NE(refusal("tracker_type: ocsort\n").find("does not have yet"), std::string::npos);
  EXPECT_NE(refusal("tracker_type: sort\n").find("not bytetrack or botsort"), std::string::npos);
  EXPECT_NE(refusal("track_buffer: 30\n").find("tracker_type is missing"), std::string::npos);
}

TEST(TrackerConfig, BrokenFilesAreRefusedClearly) {
  EXPECT_NE(refusal("tracker_type: [botsort\n").find("not valid YAML"), std::string::npos);
  EXPECT_NE(refusal("- botsort\n").find("expected a mapping"), std::string::npos);
  EXPECT_NE(refusal("").find("expected a mapping"), std::string::npos);
  // A complex key (found by fuzz_tracking_inputs: it threw yaml-cpp's own exception).
  EXPECT_NE(refusal("?  RB :").find("not a name"), std::string::npos);
  EXPECT_NE(refusal("? [a, b]\n: 1\n").find("not a name"), std::string::npos);
  // Text that is not UTF-8 is named, never echoed raw (#57).
  EXPECT_NE(refusal("tracker_type: botsort\ntrack_buffer: 3\xFF\n")
                .find("tracker settings my.yaml: not UTF-8 text: byte 0xFF at line 2, column 16"),
            std::string::npos);
  // A folder is called a folder, not "no such file" (#57).
  {
    yolo::testing::TempDir dir("tracker_folder");
    try {
      load_tracker_config(dir.path.string());
      ADD_FAILURE() << "a folder was accepted";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("is a folder; give a tracker YAML file"),
                std::string::npos)
          << e.what();
    }
  }
  try {
    load_tracker_config("botsrt.yaml");
    FAIL() << "a missing file was accepted";
  } catch (const yolo::UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("botsrt.yaml"), std::string::npos) << m;
    EXPECT_NE(m.find("did you mean botsort.yaml"), std::string::npos) << m;
  }
}
