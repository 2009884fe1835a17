#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "yolo/synth/synthetic_data.h"
#include "yolo/trainer/modes/modes.h"
#include "yolo/trainer/settings/config.h"
#include "yolo/trainer/settings/shared_settings.h"

namespace yolo {
namespace {

synth::ClassCue class_cue(const std::string& value) {
  if (value == "shape") return synth::ClassCue::kShape;
  if (value == "colour" || value == "color") return synth::ClassCue::kColour;
  throw ConfigError(fmt::format(
      "cue={} is not known: use cue=shape (each class a shape, in any colour) or cue=colour "
      "(each class a colour, in any shape)",
      value));
}

synth::ImageFormat image_format(const std::string& value) {
  if (value == "jpg" || value == "jpeg") return synth::ImageFormat::kJpeg;
  if (value == "png") return synth::ImageFormat::kPng;
  throw ConfigError(fmt::format(
      "image_format={} is not known: use image_format=jpg (the default) or image_format=png",
      value));
}

}  // namespace

int run_synth_mode(const Config& cfg) {
  synth::SynthOptions o;
  o.dir = cfg.get_string("dir");
  o.train_images = static_cast<int>(cfg.get_int("images"));
  o.val_images = std::max(1, o.train_images / 4);
  o.imgsz = static_cast<int>(imgsz_setting(cfg).w);
  o.num_classes = static_cast<int>(cfg.get_int("nc"));
  o.cue = class_cue(cfg.get_string("cue"));
  o.image_format = image_format(cfg.get_string("image_format"));
  o.seed = static_cast<uint64_t>(cfg.get_int("seed"));
  o.video = cfg.get_bool("video");
  o.video_frames = static_cast<int>(cfg.get_int("frames"));
  o.max_objects = static_cast<int>(cfg.get_int("objects"));
  o.min_object_size = cfg.get_float("min_size");
  o.max_object_size = cfg.get_float("max_size");
  o.clutter = cfg.get_bool("clutter");
  // Set explicitly, the shape count and sizes shape the video too, so that a model trained on
  // the images meets the same objects in it; otherwise the video keeps its own defaults.
  if (cfg.was_set("objects")) o.video_objects = std::max(1, o.max_objects);
  if (cfg.was_set("min_size") || cfg.was_set("max_size")) {
    o.video_max_object_size = std::min(0.9, o.max_object_size);
    o.video_min_object_size = std::min(std::max(0.01, o.min_object_size), o.video_max_object_size);
  }
  if (o.dir.empty()) throw ConfigError("synth needs dir=PATH for the generated dataset");
  if (o.train_images < 1) throw ConfigError("images must be >= 1");
  try {
    synth::validate_synth_options(o);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(e.what());
  }
  synth::SynthReport r = synth::generate_synthetic_dataset(o);
  fmt::print(
      "Synthetic dataset: {} train + {} val images ({} backgrounds), {} instances, {} "
      "classes ({})\n  data: {}\n",
      r.train_images, r.val_images, r.background_images, r.instances, o.num_classes,
      fmt::join(synth::synth_class_names(o), ", "), r.yaml.string());
  if (o.video)
    fmt::print("  video: {}\n  ground truth: {} (MOTChallenge: {})\n", r.video.string(),
               r.video_labels.string(), r.video_mot.string());
  return 0;
}

}  // namespace yolo
