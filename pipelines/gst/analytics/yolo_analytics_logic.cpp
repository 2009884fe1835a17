// Logic of the `yoloanalytics` element, plain C++; the GObject glue is in gst_yolo_analytics.cpp.
#include "yolo_analytics_logic.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "debug.h"
#include "yolo/analytics/analytics_json.h"
#include "yolo/core/strings.h"
#include "yolo/core/text_file.h"
#include "yolo/gst/analytics_meta.h"
#include "yolo/gst/detection_meta.h"

namespace yolo::gst {

analytics::AnalyticsConfig load_stream_analytics(const std::string& path,
                                                 const std::string& stream_id) {
  std::string text;
  try {  // one reading of text files (core/text_file.h): UTF-8, a byte-order mark, CRLF
    text = read_text_file(path, "analytics config (the config property)");
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(fmt::format("{}: malformed YAML: {}", path, e.msg));
  }
  if (!root.IsMap()) throw std::invalid_argument(path + ": expected a map of analytics settings");
  analytics::AnalyticsConfig c;
  if (const YAML::Node streams = root["streams"]) {
    // A yolo-monitor configuration: this stream's entry; its other keys are the monitor's.
    std::vector<std::string> ids;
    for (const auto& entry : streams) {
      const std::string id = entry["id"] ? entry["id"].as<std::string>() : "";
      if (id == stream_id) {
        c = analytics::parse_analytics(entry, fmt::format("{}: stream '{}'", path, stream_id));
        if (c.empty())
          throw std::invalid_argument(
              fmt::format("{}: stream '{}' has no lines or zones", path, stream_id));
        return c;
      }
      ids.push_back(id);
    }
    throw std::invalid_argument(fmt::format(
        "{}: no stream '{}' (streams there: {}); set the element's stream-id to one of them", path,
        stream_id, ids.empty() ? std::string("none") : fmt::format("{}", fmt::join(ids, ", "))));
  }
  // An analytics file: every key must be one of the analytics keys.
  const auto& keys = analytics::analytics_keys();
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    const auto near = closest_matches(key, keys, 1);
    throw std::invalid_argument(fmt::format(
        "{}: unknown key '{}'{} (allowed: {}, or streams: with entries by id)", path, key,
        near.empty() ? "" : fmt::format(", did you mean {}?", near[0]), fmt::join(keys, ", ")));
  }
  c = analytics::parse_analytics(root, path);
  if (c.empty()) throw std::invalid_argument(path + ": has no lines or zones");
  return c;
}

bool YoloAnalyticsLogic::load(const std::string& config_path, const std::string& stream_id) {
  stream_id_ = stream_id;
  if (config_path.empty()) {
    GST_ELEMENT_ERROR(element_, RESOURCE, NOT_FOUND, ("No analytics settings"),
                      ("set config=FILE: lines and zones as in docs/analytics.md, or a "
                       "yolo-monitor configuration with stream-id naming the stream"));
    return false;
  }
  try {
    config_ = load_stream_analytics(config_path, stream_id);
    return true;
  } catch (const std::exception& e) {
    config_.reset();
    GST_ELEMENT_ERROR(element_, LIBRARY, SETTINGS, ("%s", e.what()),
                      ("config=%s stream-id=%s", config_path.c_str(), stream_id.c_str()));
    return false;
  }
}

bool YoloAnalyticsLogic::start() {
  if (!config_) return false;
  analytics_.emplace(stream_id_, *config_);
  placed_.reset();
  have_caps_ = false;
  resets_.clear();
  pending_ = nlohmann::json::array();
  next_seq_ = 1;
  unmarked_frames_ = 0;
  GST_OBJECT_LOCK(element_);
  stats_ = {};
  GST_OBJECT_UNLOCK(element_);
  return true;
}

void YoloAnalyticsLogic::stop() {
  analytics_.reset();
  have_caps_ = false;
}

bool YoloAnalyticsLogic::set_caps(GstCaps* caps) {
  GstVideoInfo info;
  if (!gst_video_info_from_caps(&info, caps)) return false;
  try {
    placed_ =
        analytics::for_frame(*config_, info.width, info.height, "stream '" + stream_id_ + "'");
  } catch (const std::exception& e) {
    GST_ELEMENT_ERROR(element_, STREAM, FORMAT, ("%s", e.what()),
                      ("the lines and zones do not fit %dx%d frames: give them in pixels of this "
                       "size, or as units: normalized",
                       info.width, info.height));
    return false;
  }
  info_ = info;
  have_caps_ = true;
  return true;
}

void YoloAnalyticsLogic::on_event(GstEvent* event) {
  if (!resets_.starts_over(event) || !analytics_) return;
  analytics::AnalyticsFrame at;
  at.wall_time = std::chrono::system_clock::now();
  for (const auto& e : analytics_->reset(at)) pending_.push_back(analytics::to_json(e));
  GST_DEBUG_OBJECT(element_, "%s: the analytics start again", GST_EVENT_TYPE_NAME(event));
  GST_OBJECT_LOCK(element_);
  ++stats_.resets;
  GST_OBJECT_UNLOCK(element_);
}

GstFlowReturn YoloAnalyticsLogic::process(GstBuffer* buffer, bool post_messages) {
  if (!analytics_ || !have_caps_) return GST_FLOW_NOT_NEGOTIATED;
  GST_OBJECT_LOCK(element_);
  ++stats_.frames;
  GST_OBJECT_UNLOCK(element_);
  const std::optional<bool> inferred = inference_mark(buffer);
  if (inferred && !*inferred) return GST_FLOW_OK;  // not looked at: nothing moved, as far as known

  analytics::AnalyticsFrame f;
  f.frame = static_cast<int64_t>(inference_frame(buffer).value_or(unmarked_frames_++));
  const GstClockTime pts = GST_BUFFER_PTS(buffer);
  f.pts_ns = GST_CLOCK_TIME_IS_VALID(pts) ? static_cast<int64_t>(pts) : -1;
  f.wall_time = std::chrono::system_clock::now();
  f.width = info_.width;
  f.height = info_.height;
  for (const Detection& d :
       read_roi_metas(buffer, RoiRegions::kDetections, info_.width, info_.height)) {
    if (d.track_id > 0)
      f.objects.push_back({d.track_id, d.class_id, d.class_name, d.x1, d.y1, d.x2, d.y2});
  }
  std::vector<analytics::AnalyticsEvent> events;
  try {
    events = analytics_->update(f);
  } catch (const std::exception& e) {
    GST_ELEMENT_ERROR(element_, STREAM, FAILED, ("Analytics failed"), ("%s", e.what()));
    return GST_FLOW_ERROR;
  }
  nlohmann::json list = std::move(pending_);
  pending_ = nlohmann::json::array();
  for (const auto& e : events) list.push_back(analytics::to_json(e));
  for (auto& e : list) e["seq"] = next_seq_++;
  const std::string events_text =
      list.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  attach_analytics_meta(buffer,
                        {stream_id_, events_text,
                         analytics::to_json(analytics_->counts())
                             .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                         analytics::geometry_json(*placed_).dump()});
  if (post_messages && !list.empty()) {
    GstStructure* s =
        gst_structure_new("yolo-analytics", "stream-id", G_TYPE_STRING, stream_id_.c_str(),
                          "events", G_TYPE_STRING, events_text.c_str(), nullptr);
    gst_element_post_message(GST_ELEMENT(element_),
                             gst_message_new_element(GST_OBJECT(element_), s));
  }
  GST_OBJECT_LOCK(element_);
  ++stats_.analysed;
  stats_.events += list.size();
  GST_OBJECT_UNLOCK(element_);
  return GST_FLOW_OK;
}

GstStructure* YoloAnalyticsLogic::stats_structure() const {
  GST_OBJECT_LOCK(element_);
  const AnalyticsStats s = stats_;
  GST_OBJECT_UNLOCK(element_);
  return gst_structure_new("yoloanalytics-stats", "frames", G_TYPE_UINT64, s.frames, "analysed",
                           G_TYPE_UINT64, s.analysed, "events", G_TYPE_UINT64, s.events, "resets",
                           G_TYPE_UINT64, s.resets, nullptr);
}

}  // namespace yolo::gst
