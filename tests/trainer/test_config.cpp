// Settings: the schema read from config/default.yaml, typed overrides, cfg files, suggestions.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <filesystem>
#include <fstream>

#include "yolo/runtime/inference_settings.h"
#include "yolo/runtime/postprocess.h"
#include "yolo/trainer/settings/config.h"
#include "yolo/trainer/settings/shared_settings.h"

using yolo::Config;
using yolo::ConfigError;
using yolo::ConfigSchema;
using yolo::ValueType;

namespace {

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  auto p = std::filesystem::temp_directory_path() / name;
  std::ofstream(p) << text;
  return p;
}

}  // namespace

TEST(ConfigSchema, BuiltinMatchesUltralyticsDefaults) {
  Config c;
  EXPECT_EQ(c.get_int("epochs"), 100);
  EXPECT_EQ(c.get_int("batch"), 16);
  EXPECT_EQ(c.get_int("imgsz"), 640);
  EXPECT_DOUBLE_EQ(c.get_float("lr0"), 0.01);
  EXPECT_DOUBLE_EQ(c.get_float("momentum"), 0.937);
  EXPECT_DOUBLE_EQ(c.get_float("weight_decay"), 0.0005);
  EXPECT_DOUBLE_EQ(c.get_float("box"), 7.5);
  EXPECT_DOUBLE_EQ(c.get_float("cls"), 0.5);
  EXPECT_DOUBLE_EQ(c.get_float("dfl"), 1.5);
  EXPECT_EQ(c.get_int("close_mosaic"), 10);
  EXPECT_EQ(c.get_int("nbs"), 64);
  EXPECT_EQ(c.get_string("optimizer"), "auto");
  EXPECT_TRUE(c.get_bool("amp"));
  EXPECT_FALSE(c.get_bool("cos_lr"));
  EXPECT_TRUE(c.is_null("device"));
  EXPECT_TRUE(c.is_null("conf"));
  EXPECT_DOUBLE_EQ(c.get_float("iou"), 0.7);
  EXPECT_EQ(c.get_int("max_det"), 300);
  EXPECT_EQ(c.get_string("format"), "torchscript");
  EXPECT_TRUE(c.overrides().empty());
}

// The defaults the element, yolo-monitor and the runtime's options name in code are
// config/default.yaml's: a change to one side without the other fails here.
TEST(ConfigSchema, NamedInferenceDefaultsAreDefaultYamls) {
  Config c;
  EXPECT_DOUBLE_EQ(c.get_float("iou"), yolo::kNmsIou);
  EXPECT_EQ(c.get_int("max_det"), yolo::kMaxDet);
  // conf is empty in default.yaml; its help names both thresholds that fill it.
  const std::string conf_help = c.schema().find("conf")->help;
  EXPECT_NE(conf_help.find(fmt::format("{:g} predict", yolo::kPredictConf)), std::string::npos)
      << conf_help;
  EXPECT_NE(conf_help.find(fmt::format("{:g} val", yolo::kValConf)), std::string::npos)
      << conf_help;
  yolo::NmsOptions nms;
  EXPECT_FLOAT_EQ(nms.iou, static_cast<float>(c.get_float("iou")));
  EXPECT_EQ(nms.max_det, c.get_int("max_det"));
  EXPECT_FLOAT_EQ(nms.conf, static_cast<float>(yolo::kPredictConf));
}

// The shared inference settings' ranges and command-line names (inference_settings.h) are
// default.yaml's: the element and yolo-monitor check the same ranges the command line does.
TEST(ConfigSchema, SharedInferenceRangesAndNamesAreDefaultYamls) {
  const ConfigSchema& schema = ConfigSchema::builtin();
  const auto expect_range = [&](const char* key, yolo::SettingRange range) {
    const auto* spec = schema.find(key);
    ASSERT_NE(spec, nullptr) << key;
    ASSERT_TRUE(spec->min && spec->max) << key << " has no range in default.yaml";
    EXPECT_DOUBLE_EQ(*spec->min, range.lo) << key;
    EXPECT_DOUBLE_EQ(*spec->max, range.hi) << key;
  };
  const yolo::InferenceNames& n = yolo::kInferenceNames;
  expect_range(n.conf.command_line, yolo::kConfRange);
  expect_range(n.iou.command_line, yolo::kIouRange);
  expect_range(n.max_det.command_line, yolo::kMaxDetRange);
  for (const yolo::SettingNames* s : {&n.device, &n.conf, &n.iou, &n.max_det, &n.classes,
                                      &n.agnostic, &n.half, &n.bf16, &n.rect}) {
    EXPECT_NE(schema.find(s->command_line), nullptr) << s->command_line;
  }
  // One check: a value outside is named as each front end names it.
  yolo::InferenceSettings bad;
  bad.conf = 2;
  bad.max_det = 0;
  bad.bf16 = "yes";
  const std::vector<std::string> cli = bad.problems(yolo::SettingFront::kCommandLine);
  ASSERT_EQ(cli.size(), 3u);
  EXPECT_EQ(cli[0], "conf=2 is out of range: use 0 to 1");
  EXPECT_EQ(cli[1], "max_det=0 is out of range: use 1 to 30000");
  EXPECT_EQ(cli[2], "bf16=yes is not one of auto, true, false");
  EXPECT_EQ(bad.problems(yolo::SettingFront::kElement)[0],
            "conf-threshold=2 is out of range: use 0 to 1");
  EXPECT_TRUE(yolo::InferenceSettings().problems(yolo::SettingFront::kCommandLine).empty());
}

TEST(ConfigSchema, EveryKeyHasTypeAndMeaning) {
  const auto& schema = ConfigSchema::builtin();
  EXPECT_GT(schema.keys().size(), 60u);
  for (const auto& k : schema.keys()) {
    EXPECT_FALSE(k.types.empty()) << k.name;
    EXPECT_FALSE(k.help.empty()) << k.name;
    EXPECT_FALSE(k.section.empty()) << k.name;
  }
  EXPECT_EQ(schema.find("lr0")->section, "Hyperparameters");
  EXPECT_TRUE(schema.find("freeze")->optional);
}

// Generated from the schema: every key whose comment in default.yaml carries a range refuses a
// value just outside it (naming the key and the range) and accepts its bounds, and its default
// lies inside; a new key with a range is covered without touching this test.
TEST(ConfigSchema, EveryRangeIsEnforced) {
  int ranged = 0;
  for (const auto& k : ConfigSchema::builtin().keys()) {
    if (!k.min && !k.max) continue;
    ++ranged;
    const bool is_float =
        std::find(k.types.begin(), k.types.end(), ValueType::kFloat) != k.types.end();
    auto text = [&](double v) {
      return is_float ? fmt::format("{}", v) : fmt::format("{}", static_cast<long long>(v));
    };
    Config c;
    if (!k.default_value.IsNull() && k.default_value.IsScalar()) {
      const double d = k.default_value.as<double>();
      EXPECT_TRUE((!k.min || d >= *k.min) && (!k.max || d <= *k.max)) << k.name << " default";
    }
    auto refused = [&](double v) {
      const std::string e = error_of([&] { c.set(k.name, yolo::parse_cli_value(text(v))); });
      EXPECT_NE(e.find(k.name + "=" + text(v) + " is out of range"), std::string::npos) << e;
    };
    auto accepted = [&](double v) {
      EXPECT_EQ(error_of([&] { c.set(k.name, yolo::parse_cli_value(text(v))); }), "")
          << k.name << "=" << text(v);
    };
    if (k.min) {
      refused(is_float ? *k.min - std::max(std::abs(*k.min) / 2, 1e-3) : *k.min - 1);
      accepted(*k.min);
    }
    if (k.max) {
      refused(is_float ? *k.max + std::max(std::abs(*k.max) / 2, 1e-3) : *k.max + 1);
      accepted(*k.max);
    }
  }
  EXPECT_GT(ranged, 40);
  // Each number of a list is checked too, and the message names the bounds.
  Config c;
  const std::string e = error_of([&] { c.set("imgsz", yolo::parse_cli_value("[640, 100000]")); });
  EXPECT_NE(e.find("from 32 to 8192"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { c.set("batch", yolo::parse_cli_value("-1")); }).find("AutoBatch"),
            std::string::npos);
}

TEST(ConfigSchema, RejectsKeysWithoutTypeComment) {
  EXPECT_THROW(ConfigSchema::parse("epochs: 3\n"), ConfigError);
  EXPECT_THROW(ConfigSchema::parse("epochs: 3 # number\n"), ConfigError);
  EXPECT_THROW(ConfigSchema::parse("epochs: 3 # (integer) number\n"), ConfigError);
  auto s = ConfigSchema::parse("# Sect ---\nepochs: 3 # (int) number\nx: # (str, optional) y\n");
  ASSERT_EQ(s.keys().size(), 2u);
  EXPECT_EQ(s.keys()[0].section, "Sect");
  EXPECT_TRUE(s.keys()[1].optional);
}

TEST(Config, TypedOverrides) {
  Config c;
  c.apply_text_overrides({{"epochs", "3"},
                          {"lr0", "1e-3"},
                          {"amp", "False"},
                          {"cos_lr", "TRUE"},
                          {"device", "0,1"},
                          {"name", "42"},
                          {"imgsz", "[480, 640]"},
                          {"conf", "None"},
                          {"momentum", "1"}});
  EXPECT_EQ(c.get_int("epochs"), 3);
  EXPECT_DOUBLE_EQ(c.get_float("lr0"), 1e-3);
  EXPECT_FALSE(c.get_bool("amp"));
  EXPECT_TRUE(c.get_bool("cos_lr"));
  EXPECT_EQ(c.get_string("device"), "0,1");
  EXPECT_EQ(c.get_string("name"), "42");
  EXPECT_EQ(c.get_int_list("imgsz"), (std::vector<long long>{480, 640}));
  EXPECT_TRUE(c.is_null("conf"));
  EXPECT_DOUBLE_EQ(c.get_float("momentum"), 1.0);
  EXPECT_EQ(c.overrides().size(), 8u);  // conf=None equals its default
}

TEST(Config, IntegralFloatsAreAcceptedForIntKeys) {
  Config c;
  c.set("epochs", yolo::parse_cli_value("5.0"));
  EXPECT_EQ(c.get_int("epochs"), 5);
}

TEST(Config, WrongTypesNameTheKeyAndTheType) {
  Config c;
  std::string e = error_of([&] { c.set("epochs", yolo::parse_cli_value("many")); });
  EXPECT_NE(e.find("'epochs=many' is invalid"), std::string::npos) << e;
  EXPECT_NE(e.find("int"), std::string::npos) << e;
  e = error_of([&] { c.set("epochs", yolo::parse_cli_value("2.5")); });
  EXPECT_NE(e.find("whole number"), std::string::npos) << e;
  // Too many digits for an integer: too large, not "not a whole number" (#57).
  e = error_of([&] { c.set("epochs", yolo::parse_cli_value("99999999999999999999")); });
  EXPECT_NE(e.find("it is too large (at most"), std::string::npos) << e;
  EXPECT_EQ(e.find("whole number"), std::string::npos) << e;
  e = error_of([&] { c.set("seed", yolo::parse_cli_value("-99999999999999999999")); });
  EXPECT_NE(e.find("it is too small (at least"), std::string::npos) << e;
  e = error_of([&] { c.set("amp", yolo::parse_cli_value("1")); });
  EXPECT_NE(e.find("amp=True"), std::string::npos) << e;
  e = error_of([&] { c.set("epochs", yolo::parse_cli_value("")); });
  EXPECT_NE(e.find("cannot be empty"), std::string::npos) << e;
  e = error_of([&] { c.set("lr0", yolo::parse_cli_value("nan")); });
  EXPECT_NE(e.find("finite"), std::string::npos) << e;
  e = error_of([&] { c.set("epochs", yolo::parse_cli_value("[1,2]")); });
  EXPECT_NE(e.find("list"), std::string::npos) << e;
  // Failed sets leave the old value.
  EXPECT_EQ(c.get_int("epochs"), 100);
}

TEST(Config, UnknownKeySuggestsNearest) {
  Config c;
  std::string e = error_of([&] { c.set("epocs", yolo::parse_cli_value("3")); });
  EXPECT_NE(e.find("'epocs' is not a valid key"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'epochs'"), std::string::npos) << e;
  e = error_of([&] { c.set("lr", yolo::parse_cli_value("3")); });
  EXPECT_NE(e.find("did you mean 'lr0'"), std::string::npos) << e;
  e = error_of([&] { c.set("zzzzzzzzzz", yolo::parse_cli_value("3")); });
  EXPECT_EQ(e.find("did you mean"), std::string::npos) << e;
}

// Ultralytics 8.4.190: `nms` is three-state (empty = one-to-many head + NMS) and the deprecated
// `end2end` is mapped onto it the way Ultralytics maps it.
TEST(Config, NmsIsThreeStateAndEnd2endMapsOntoIt) {
  Config c;
  EXPECT_TRUE(c.is_null("nms"));
  c.set("end2end", yolo::parse_cli_value("True"));
  ASSERT_FALSE(c.is_null("nms"));
  EXPECT_FALSE(c.get_bool("nms"));
  c.set("end2end", yolo::parse_cli_value("False"));
  EXPECT_TRUE(c.is_null("nms"));
  c.set("nms", yolo::parse_cli_value("True"));
  c.set("end2end", yolo::parse_cli_value("False"));
  EXPECT_TRUE(c.get_bool("nms"));
  c.set("end2end", yolo::parse_cli_value("None"));  // an old args.yaml's empty value: no change
  EXPECT_TRUE(c.get_bool("nms"));
  EXPECT_TRUE(c.accepts_key("end2end"));
  const std::string e = error_of([&] { c.set("end2end", yolo::parse_cli_value("yes")); });
  EXPECT_NE(e.find("nms=False"), std::string::npos) << e;
}

TEST(Config, AllProblemsReportedTogether) {
  Config c;
  std::string e = error_of([&] {
    c.apply_text_overrides({{"epocs", "3"}, {"batch", "x"}, {"imgsz", "320"}});
  });
  EXPECT_NE(e.find("epocs"), std::string::npos) << e;
  EXPECT_NE(e.find("batch=x"), std::string::npos) << e;
  EXPECT_EQ(c.get_int("imgsz"), 320);  // the valid one still applied
}

TEST(Config, CfgFileOverridesDefaults) {
  auto p = write_temp("yolo_cfg_ok.yaml", "epochs: 7\nlr0: 0.02\ndevice: cpu\namp: False\n");
  Config c;
  c.apply_file(p.string());
  EXPECT_EQ(c.get_int("epochs"), 7);
  EXPECT_DOUBLE_EQ(c.get_float("lr0"), 0.02);
  EXPECT_EQ(c.get_string("device"), "cpu");
  EXPECT_FALSE(c.get_bool("amp"));
}

TEST(Config, BadCfgFilesAreClearErrors) {
  Config c;
  std::string e = error_of([&] { c.apply_file("/nonexistent/cfg.yaml"); });
  EXPECT_NE(e.find("cfg file '/nonexistent/cfg.yaml' does not exist"), std::string::npos) << e;
  // A folder is named as one, not as a missing file (#57).
  e = error_of([&] { c.apply_file(std::filesystem::temp_directory_path().string()); });
  EXPECT_NE(e.find("is a directory, not a file"), std::string::npos) << e;
  auto bad = write_temp("yolo_cfg_bad.yaml", "epochs: [1, 2\nlr0: 0.1\n");
  e = error_of([&] { c.apply_file(bad.string()); });
  EXPECT_NE(e.find("not valid YAML"), std::string::npos) << e;
  EXPECT_NE(e.find("line"), std::string::npos) << e;
  auto unknown = write_temp("yolo_cfg_unknown.yaml", "epocs: 3\n");
  e = error_of([&] { c.apply_file(unknown.string()); });
  EXPECT_NE(e.find("did you mean 'epochs'"), std::string::npos) << e;
  EXPECT_NE(e.find(unknown.string()), std::string::npos) << e;
  auto list = write_temp("yolo_cfg_list.yaml", "- a\n- b\n");
  e = error_of([&] { c.apply_file(list.string()); });
  EXPECT_NE(e.find("mapping"), std::string::npos) << e;
  // Saved by a Latin-1 editor: the byte itself, where an editor shows it.
  auto latin1 = write_temp("yolo_cfg_latin1.yaml", "epochs: 3\nname: caf\xE9\n");
  e = error_of([&] { c.apply_file(latin1.string()); });
  EXPECT_NE(e.find("is not UTF-8 text: byte 0xE9 at line 2, column 10 (offset 19)"),
            std::string::npos)
      << e;
}

TEST(CliValue, ParsesLikeUltralytics) {
  EXPECT_TRUE(yolo::parse_cli_value("none").IsNull());
  EXPECT_TRUE(yolo::parse_cli_value("Null").IsNull());
  EXPECT_EQ(yolo::parse_cli_value("True").as<bool>(), true);
  EXPECT_EQ(yolo::parse_cli_value("false").as<bool>(), false);
  EXPECT_EQ(yolo::parse_cli_value("12").as<int>(), 12);
  EXPECT_TRUE(yolo::parse_cli_value("[0, 1]").IsSequence());
  EXPECT_EQ(yolo::parse_cli_value("path/to/x.yaml").as<std::string>(), "path/to/x.yaml");
}

// The shared resolvers: imgsz as [h, w] and whether it was given, training's square side (the
// larger one, as Ultralytics' check_imgsz(max_dim=1)), conf's per-mode fallback, and half/bf16
// dropped where the device cannot use them.
TEST(SharedSettings, ImgszConfAndPrecisionResolveOnce) {
  Config c;
  const yolo::ImageSize d = yolo::imgsz_setting(c);
  EXPECT_EQ(d.h, 640);
  EXPECT_EQ(d.w, 640);
  EXPECT_FALSE(d.given);
  EXPECT_DOUBLE_EQ(yolo::conf_setting(c, yolo::kValConf), yolo::kValConf);
  EXPECT_DOUBLE_EQ(yolo::conf_setting(c, yolo::kPredictConf), yolo::kPredictConf);

  c.apply_text_overrides(
      {{"imgsz", "[256, 320]"}, {"conf", "0.4"}, {"half", "True"}, {"bf16", "True"}});
  const yolo::ImageSize hw = yolo::imgsz_setting(c);
  EXPECT_EQ(hw.h, 256);
  EXPECT_EQ(hw.w, 320);
  EXPECT_TRUE(hw.given);
  EXPECT_EQ(yolo::square_imgsz_setting(c, "training"), 320);
  EXPECT_DOUBLE_EQ(yolo::conf_setting(c, yolo::kValConf), 0.4);
  const yolo::InferencePrecision cpu = yolo::precision_setting(c, "cpu");
  EXPECT_FALSE(cpu.half);  // FP16 is for GPUs
  EXPECT_EQ(cpu.bf16, std::optional<bool>(true));
  const yolo::InferencePrecision gpu = yolo::precision_setting(c, "cuda:0");
  EXPECT_TRUE(gpu.half);
  EXPECT_EQ(gpu.bf16, std::optional<bool>(false));  // BF16 autocast is for CPUs

  Config one;
  one.apply_text_overrides({{"imgsz", "[96]"}});
  EXPECT_EQ(yolo::imgsz_setting(one).h, 96);
  EXPECT_EQ(yolo::imgsz_setting(one).w, 96);
  Config three;
  three.apply_text_overrides({{"imgsz", "[96, 96, 96]"}});
  EXPECT_THROW(yolo::imgsz_setting(three), yolo::ConfigError);
}
