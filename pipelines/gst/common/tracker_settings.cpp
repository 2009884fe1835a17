#include "yolo/gst/tracker_settings.h"

#include <fmt/format.h>

#include <string>

#include "yolo/core/error.h"

namespace yolo::gst {
namespace {

constexpr const char* kName = "yolo-tracker-settings";

using tracking::GmcMethod;
using tracking::TrackerConfig;
using tracking::TrackerType;

[[noreturn]] void refuse(const std::string& what) {
  throw UsageError(fmt::format("yolotracker settings: {}", what));
}

double number(const GstStructure* s, const char* field) {
  double v = 0;
  if (!gst_structure_get_double(s, field, &v))
    refuse(fmt::format("{} is missing or not a double", field));
  return v;
}

bool truth(const GstStructure* s, const char* field) {
  gboolean v = FALSE;
  if (!gst_structure_get_boolean(s, field, &v))
    refuse(fmt::format("{} is missing or not a boolean", field));
  return v;
}

std::string text(const GstStructure* s, const char* field) {
  const char* v = gst_structure_get_string(s, field);
  if (!v) refuse(fmt::format("{} is missing or not a string", field));
  return v;
}

}  // namespace

GstStructure* tracker_settings_structure(const TrackerConfig& c) {
  return gst_structure_new(
      kName, "tracker_type", G_TYPE_STRING, tracking::to_string(c.type), "track_high_thresh",
      G_TYPE_DOUBLE, c.track_high_thresh, "track_low_thresh", G_TYPE_DOUBLE, c.track_low_thresh,
      "new_track_thresh", G_TYPE_DOUBLE, c.new_track_thresh, "track_buffer", G_TYPE_INT,
      c.track_buffer, "match_thresh", G_TYPE_DOUBLE, c.match_thresh, "fuse_score", G_TYPE_BOOLEAN,
      c.fuse_score, "gmc_method", G_TYPE_STRING, tracking::to_string(c.gmc_method),
      "proximity_thresh", G_TYPE_DOUBLE, c.proximity_thresh, "appearance_thresh", G_TYPE_DOUBLE,
      c.appearance_thresh, "with_reid", G_TYPE_BOOLEAN, c.with_reid, "model", G_TYPE_STRING,
      c.reid_model.c_str(), "source", G_TYPE_STRING, c.source.c_str(), nullptr);
}

TrackerConfig tracker_config_from_structure(const GstStructure* s) {
  if (!s || !gst_structure_has_name(s, kName))
    refuse(fmt::format("expected a \"{}\" structure, got \"{}\"", kName,
                       s ? gst_structure_get_name(s) : "nothing"));
  TrackerConfig c;
  const std::string type = text(s, "tracker_type");
  if (type == tracking::to_string(TrackerType::kByteTrack)) {
    c.type = TrackerType::kByteTrack;
  } else if (type == tracking::to_string(TrackerType::kBotSort)) {
    c.type = TrackerType::kBotSort;
  } else {
    refuse(fmt::format("tracker_type \"{}\" is not bytetrack or botsort", type));
  }
  c.track_high_thresh = number(s, "track_high_thresh");
  c.track_low_thresh = number(s, "track_low_thresh");
  c.new_track_thresh = number(s, "new_track_thresh");
  if (!gst_structure_get_int(s, "track_buffer", &c.track_buffer))
    refuse("track_buffer is missing or not an int");
  c.match_thresh = number(s, "match_thresh");
  c.fuse_score = truth(s, "fuse_score");
  const std::string gmc = text(s, "gmc_method");
  bool known = false;
  for (GmcMethod m : {GmcMethod::kNone, GmcMethod::kSparseOptFlow, GmcMethod::kOrb,
                      GmcMethod::kSift, GmcMethod::kEcc}) {
    if (gmc == tracking::to_string(m)) c.gmc_method = m, known = true;
  }
  if (!known) refuse(fmt::format("gmc_method \"{}\" is not one Ultralytics has", gmc));
  c.proximity_thresh = number(s, "proximity_thresh");
  c.appearance_thresh = number(s, "appearance_thresh");
  c.with_reid = truth(s, "with_reid");
  c.reid_model = text(s, "model");
  c.source = text(s, "source");
  tracking::check_tracker_config(c);
  return c;
}

}  // namespace yolo::gst
