// Logic of the `yolotracker` element, plain C++; the GObject glue is in gst_yolo_tracker.cpp.
//
// The element's state and streaming work (docs/gst-yolo.md describes the element).
//
// One tracker (yolo/tracking/tracker.h: ByteTrack or BoT-SORT as Ultralytics runs them) per
// element instance, so each branch of a multi-camera pipeline has its own ids. Per frame, on the
// streaming thread: the regions with a "detection" structure are the tracker's input (exact
// sub-pixel boxes from their normalised corners); each detection that is a confirmed track keeps
// its ROI meta, moved to the tracker's filtered box, with roi->id and a "tracking" structure
// (yolo/gst/detection_meta.h has the layout); the others are removed, or kept untouched with
// keep-untracked. Other elements' regions pass untouched.
//
// Frames the `yolo` element marked as not inferred (inference-interval, QoS) are not given to the
// tracker at all, as Ultralytics' vid_stride skips them: a tracker that saw them as empty frames
// would drop every tentative track before it could be confirmed. Frames without the mark (another
// detector upstream) are all tracked, an empty one as "nothing there".
//
// BoT-SORT's camera motion compensation gets a grey view of the frame (NV12/I420: the luma plane
// in place; packed RGB: converted), only when the settings ask for it (botsort with gmc_method
// other than none); ByteTrack never maps the frame.
//
// Publishing: when the `yolo` element upstream serves HTTP or posts messages, the element takes
// that over (result_publisher.h), so that results and messages carry ids.
//
// Threads: the tracker, the caps and the reset rule belong to the streaming thread (transform_ip
// and serialized sink events; start/stop run while it is stopped). The counters behind `stats`
// are written and read under the element's object lock.
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "id_reset_rule.h"
#include "result_publisher.h"
#include "yolo/runtime/frame_view.h"
#include "yolo/tracking/tracker.h"
#include "yolo/tracking/tracker_config.h"

namespace yolo::gst {

// Counters behind the read-only `stats` property (since the element started).
struct TrackerStats {
  uint64_t frames = 0;              // buffers received
  uint64_t tracked_frames = 0;      // frames given to the tracker
  uint64_t skipped_frames = 0;      // frames the detector did not run on (not tracked)
  uint64_t tracks = 0;              // confirmed tracks on the last tracked frame
  uint64_t highest_id = 0;          // the highest id given since the last reset
  uint64_t removed = 0;             // detections removed for not being confirmed tracks
  uint64_t skipped_detections = 0;  // non-finite or empty boxes the tracker ignored
  uint64_t resets = 0;              // new runs of ids (IdResetRule)
};

// The element's properties (gst_yolo_tracker.cpp's table).
struct TrackerSettings {
  std::string tracker = "botsort.yaml";  // a built-in name or a YAML file; read going to READY
  // The settings as a value (yolo/gst/tracker_settings.h), from an application that read them
  // already; when given, `tracker` is not read.
  std::shared_ptr<GstStructure> settings;
  bool keep_untracked = false;  // keep detections that are not confirmed tracks
};

class YoloTrackerLogic {
 public:
  explicit YoloTrackerLogic(GstBaseTransform* element) : element_(element) {}
  YoloTrackerLogic(const YoloTrackerLogic&) = delete;
  YoloTrackerLogic& operator=(const YoloTrackerLogic&) = delete;

  // Takes the tracker settings: the `settings` structure when given, else reads `tracker` (a
  // built-in name or a YAML path). A problem posts an element error with the library's message
  // (it names the file or field and the key) and returns false.
  bool load(const TrackerSettings& settings);
  // READY -> PAUSED: a fresh tracker (the settings taken again if they changed since load).
  bool start(const TrackerSettings& settings);
  void stop();
  bool set_caps(GstCaps* caps);
  // One frame (writable buffer), streaming thread. GST_FLOW_ERROR (with an element error) only if
  // the tracker itself fails.
  GstFlowReturn process(GstBuffer* buffer, bool keep_untracked);
  // Sink events in stream order: starts a new run of ids when IdResetRule says so.
  void on_event(GstEvent* event);
  GstStructure* stats_structure() const;
  // The `yolo` element's handoff offer (any thread, before that stream's first frame gets here):
  // takes it unless one was taken already since start. True when taken.
  bool take_over_publishing(GstQuery* query);

 private:
  // The regions carrying a detection, and what the tracker gets from each (same order).
  struct Regions {
    std::vector<GstVideoRegionOfInterestMeta*> metas;
    std::vector<tracking::TrackerDetection> detections;
  };
  Regions collect(GstBuffer* buffer) const;
  std::vector<tracking::Track> update(GstBuffer* buffer, const Regions& regions);
  // Writes the tracks back onto their regions; returns how many regions were removed.
  uint64_t apply(GstBuffer* buffer, const Regions& regions,
                 const std::vector<tracking::Track>& tracks, bool keep_untracked) const;
  void count(const std::function<void(TrackerStats&)>& change);

  GstBaseTransform* element_;  // owns this object

  // Streaming thread (see the header comment).
  std::optional<tracking::TrackerConfig> config_;
  std::string config_name_;                     // the tracker property config_ was read from,
  std::shared_ptr<GstStructure> config_value_;  // or the settings structure it came from
  std::optional<tracking::Tracker> tracker_;
  bool needs_frame_ = false;  // BoT-SORT with motion compensation
  GstVideoInfo info_{};
  PixelFormat format_ = PixelFormat::kBGR;
  bool have_caps_ = false;
  IdResetRule resets_;
  // Set by take_over_publishing (on the yolo element's thread, before it pushes the frames this
  // thread will see, so the frames' path orders the write before the reads), cleared by stop().
  std::shared_ptr<ResultPublisher> publisher_;
  PublishOptions publish_options_;
  guint64 unmarked_frames_ = 0;  // frame numbers when upstream puts no inference marker

  TrackerStats stats_;  // under the object lock
};

}  // namespace yolo::gst
