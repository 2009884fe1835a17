// Logic of the `yolotracker` element, plain C++; the GObject glue is in gst_yolo_tracker.cpp.
#include "yolo_tracker_logic.h"

#include <gst/video/gstvideometa.h>

#include <algorithm>
#include <exception>
#include <unordered_set>

#include "debug.h"
#include "http_service.h"
#include "video_frames.h"
#include "yolo/gst/detection_meta.h"
#include "yolo/gst/tracker_settings.h"

namespace yolo::gst {
namespace {

using tracking::Track;
using tracking::TrackerConfig;
using tracking::TrackerDetection;

gboolean remove_listed(GstBuffer*, GstMeta** meta, gpointer listed) {
  if (static_cast<std::unordered_set<GstMeta*>*>(listed)->count(*meta)) *meta = nullptr;
  return TRUE;
}

}  // namespace

bool YoloTrackerLogic::load(const TrackerSettings& s) {
  try {
    config_ = s.settings ? tracker_config_from_structure(s.settings.get())
                         : tracking::load_tracker_config(s.tracker);
    config_name_ = s.tracker;
    config_value_ = s.settings;
    return true;
  } catch (const std::exception& e) {
    config_.reset();
    if (s.settings) {
      GST_ELEMENT_ERROR(element_, LIBRARY, SETTINGS, ("%s", e.what()),
                        ("settings: give a structure made by tracker_settings_structure() "
                         "(yolo/gst/tracker_settings.h), or tracker=FILE"));
    } else {
      GST_ELEMENT_ERROR(element_, LIBRARY, SETTINGS, ("%s", e.what()),
                        ("tracker=%s: use botsort.yaml, bytetrack.yaml or a YAML file with "
                         "their keys (docs/tracking.md)",
                         s.tracker.c_str()));
    }
    return false;
  }
}

bool YoloTrackerLogic::start(const TrackerSettings& settings) {
  const bool same = config_ && config_value_ == settings.settings &&
                    (settings.settings || config_name_ == settings.tracker);
  if (!same && !load(settings)) return false;
  tracker_.emplace(*config_);
  needs_frame_ = config_->type == tracking::TrackerType::kBotSort &&
                 config_->gmc_method != tracking::GmcMethod::kNone;
  resets_.clear();
  count([](TrackerStats& s) { s = {}; });
  GST_INFO_OBJECT(element_, "tracker %s (%s, motion compensation %s)", config_->source.c_str(),
                  tracking::to_string(config_->type),
                  needs_frame_ ? tracking::to_string(config_->gmc_method) : "off");
  return true;
}

void YoloTrackerLogic::stop() {
  tracker_.reset();
  have_caps_ = false;
  publisher_.reset();
  unmarked_frames_ = 0;
}

bool YoloTrackerLogic::take_over_publishing(GstQuery* query) {
  const std::optional<PublishHandoff> h = parse_handoff(query);
  if (!h || !tracker_) return false;
  // A second offer while holding one: the same stream's `yolo` element started again (take it
  // anew, so that one of us publishes); another stream's is refused (one publisher per tracker).
  if (publisher_ && publisher_->stream_id() != h->stream_id) return false;
  std::shared_ptr<HttpService> http;
  if (h->http_port > 0) {
    try {
      // The offering element holds this service, so this joins it rather than binding anew.
      http = HttpServiceRegistry::process().acquire(h->http_address, h->http_port);
    } catch (const std::exception& e) {
      GST_WARNING_OBJECT(element_, "the results of '%s' cannot be served from here: %s",
                         h->stream_id.c_str(), e.what());
      return false;  // the yolo element keeps publishing, without ids
    }
  }
  publish_options_ = h->options;
  publisher_ = std::make_shared<ResultPublisher>(GST_ELEMENT(element_), h->stream_id, http);
  take_handoff(query);
  GST_INFO_OBJECT(element_, "publishing the tracked results of '%s'%s%s", h->stream_id.c_str(),
                  http ? " to HTTP" : "", publish_options_.post_messages ? " and the bus" : "");
  return true;
}

bool YoloTrackerLogic::set_caps(GstCaps* caps) {
  GstVideoInfo info;
  if (!gst_video_info_from_caps(&info, caps)) return false;
  const auto format = pixel_format_of(GST_VIDEO_INFO_FORMAT(&info));
  if (!format) return false;  // the pad template keeps other formats out
  info_ = info;
  format_ = *format;
  have_caps_ = true;
  return true;
}

void YoloTrackerLogic::on_event(GstEvent* event) {
  if (!resets_.starts_over(event) || !tracker_) return;
  tracker_->reset();
  GST_DEBUG_OBJECT(element_, "%s: track ids start again at 1", GST_EVENT_TYPE_NAME(event));
  count([](TrackerStats& s) {
    ++s.resets;
    s.highest_id = 0;
    s.tracks = 0;
  });
}

YoloTrackerLogic::Regions YoloTrackerLogic::collect(GstBuffer* buffer) const {
  Regions r;
  gpointer state = nullptr;
  while (GstMeta* m = gst_buffer_iterate_meta_filtered(
             buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
    auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
    const std::optional<Detection> d = roi_detection(roi, info_.width, info_.height);
    if (!d) continue;  // another element's region: not a detection
    r.metas.push_back(roi);
    r.detections.push_back({d->x1, d->y1, d->x2, d->y2, d->confidence, d->class_id});
  }
  return r;
}

std::vector<Track> YoloTrackerLogic::update(GstBuffer* buffer, const Regions& regions) {
  if (!needs_frame_) return tracker_->update(regions.detections);
  const MappedFrame mapped(&info_, buffer, GST_MAP_READ);
  if (!mapped.mapped) {
    GST_WARNING_OBJECT(element_,
                       "a frame could not be mapped: tracked without motion "
                       "compensation");
    return tracker_->update(regions.detections);
  }
  const cv::Mat grey = grey_of(mapped.frame, format_);
  return tracker_->update(regions.detections, &grey);
}

uint64_t YoloTrackerLogic::apply(GstBuffer* buffer, const Regions& regions,
                                 const std::vector<Track>& tracks, bool keep_untracked) const {
  std::vector<const Track*> track_of(regions.metas.size(), nullptr);
  for (const Track& t : tracks) {
    if (t.detection_index >= 0 && static_cast<size_t>(t.detection_index) < track_of.size())
      track_of[static_cast<size_t>(t.detection_index)] = &t;
  }
  std::unordered_set<GstMeta*> untracked;
  for (size_t i = 0; i < track_of.size(); ++i) {
    GstVideoRegionOfInterestMeta* roi = regions.metas[i];
    if (const Track* t = track_of[i]) {
      Detection box;
      box.x1 = t->x1;
      box.y1 = t->y1;
      box.x2 = t->x2;
      box.y2 = t->y2;
      set_roi_box(roi, box, info_.width, info_.height);
      // frames_since_found counts the matches after the first (Ultralytics' tracklet_len).
      set_roi_track(roi, t->id, t->frames_since_found + 1);
    } else if (!keep_untracked) {
      untracked.insert(&roi->meta);
    }
  }
  // One pass over the buffer's metas, however many there are.
  if (!untracked.empty()) gst_buffer_foreach_meta(buffer, remove_listed, &untracked);
  return untracked.size();
}

GstFlowReturn YoloTrackerLogic::process(GstBuffer* buffer, bool keep_untracked) {
  if (!tracker_ || !have_caps_) return GST_FLOW_NOT_NEGOTIATED;
  const std::optional<bool> inferred = inference_mark(buffer);
  if (inferred && !*inferred) {
    count([](TrackerStats& s) {
      ++s.frames;
      ++s.skipped_frames;
    });
    return GST_FLOW_OK;
  }
  const Regions regions = collect(buffer);
  std::vector<Track> tracks;
  try {
    tracks = update(buffer, regions);
  } catch (const std::exception& e) {
    GST_ELEMENT_ERROR(element_, STREAM, FAILED, ("Tracking failed"), ("%s", e.what()));
    return GST_FLOW_ERROR;
  }
  const uint64_t removed = apply(buffer, regions, tracks, keep_untracked);
  if (publisher_) {
    const guint64 frame = inference_frame(buffer).value_or(unmarked_frames_++);
    publisher_->publish(buffer, info_, format_, frame,
                        read_roi_metas(buffer, RoiRegions::kDetections, info_.width, info_.height),
                        publish_options_);
  }
  uint64_t highest = 0;
  for (const Track& t : tracks) highest = std::max(highest, static_cast<uint64_t>(t.id));
  const auto skipped = static_cast<uint64_t>(tracker_->skipped_detections());
  count([&](TrackerStats& s) {
    ++s.frames;
    ++s.tracked_frames;
    s.tracks = tracks.size();
    s.highest_id = std::max(s.highest_id, highest);
    s.removed += removed;
    s.skipped_detections = skipped;
  });
  return GST_FLOW_OK;
}

void YoloTrackerLogic::count(const std::function<void(TrackerStats&)>& change) {
  GST_OBJECT_LOCK(element_);
  change(stats_);
  GST_OBJECT_UNLOCK(element_);
}

GstStructure* YoloTrackerLogic::stats_structure() const {
  GST_OBJECT_LOCK(element_);
  const TrackerStats s = stats_;
  GST_OBJECT_UNLOCK(element_);
  return gst_structure_new("yolotracker-stats", "frames", G_TYPE_UINT64, s.frames, "tracked-frames",
                           G_TYPE_UINT64, s.tracked_frames, "skipped-frames", G_TYPE_UINT64,
                           s.skipped_frames, "tracks", G_TYPE_UINT64, s.tracks, "highest-id",
                           G_TYPE_UINT64, s.highest_id, "removed", G_TYPE_UINT64, s.removed,
                           "skipped-detections", G_TYPE_UINT64, s.skipped_detections, "resets",
                           G_TYPE_UINT64, s.resets, nullptr);
}

}  // namespace yolo::gst
