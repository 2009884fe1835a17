// How detections leave the elements: one GstVideoRegionOfInterestMeta per detection on the
// buffer, a marker saying whether the detector ran on the frame, and (with post-messages) an
// element message per frame.
//
// ROI meta: x, y, w, h in the negotiated frame's pixels (rounded outwards to whole pixels and
// clipped to the frame), roi_type the label's quark, and a params structure
//   detection: confidence (double, 0..1), class-id (int), label (string),
//              x_min, y_min, x_max, y_max (double, normalised to 0..1: exact sub-pixel box)
// the same shape DL Streamer's gvadetect attaches, so existing consumers can read it.
//
// A tracked detection (yolotracker's output, or attach_roi_metas with track_id > 0) also has
//   roi->id = the track id (saturated at G_MAXINT; the ROI meta's id is a gint), and a second
//   params structure
//   tracking:  track-id (guint64, from 1 per stream), frames-tracked (guint64, optional: frames
//              the track has been matched in since it started or was last found again, this one
//              included; yolotracker always writes it)
// and its box (ROI and the detection structure's corners) is the tracker's filtered one. The id
// sits where DL Streamer's gvatrack puts it (roi->id; gvatrack adds an "object_id" field,
// DeepStream an object_id member): a separate structure keeps "detection" exactly the detector's
// shape and lets readers tell "tracked" from "id 0". An untracked detection has roi->id = -1 and
// no "tracking" structure.
//
// Inference marker: a GstCustomMeta named "YoloInferenceMeta" whose structure holds
//   inferred (boolean): the detector ran on this frame (false between inference-interval frames
//            and on frames QoS made it skip), frame (guint64, counted from 0 per element).
// The `yolo` element puts it on every frame it pushes. It is what lets yolotracker tell "the
// detector found nothing" (an empty frame the tracker must see, so tracks age) from "the detector
// did not look" (a frame the tracker skips, so tentative tracks survive inference-interval).
//
// Message (GST_MESSAGE_ELEMENT from the element), structure "yolo-detections":
//   stream-id (string), frame (guint64, counted from 0 per stream), pts (GstClockTime,
//   GST_CLOCK_TIME_NONE if unknown), width, height (int), detections (GstValueList of
//   "detection" structures with x1, y1, x2, y2 (double, frame pixels), confidence, class-id,
//   label).
//
// Message (GST_MESSAGE_ELEMENT from the `yolo` element), structure "yolo-status", as the element
// starts: stream-id (string), state ("starting" with http-port, "loading model", "waiting for
// frames"), detail (string: the model and device while loading, the model's label after). Posted
// from the thread that changes the state, so an application reads it with a bus sync handler
// while the state change (the model load) is still running.
#pragma once

#include <gst/gst.h>
#include <gst/video/gstvideometa.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "yolo/runtime/detection.h"

namespace yolo::gst {

inline constexpr const char* kDetectionParams = "detection";
inline constexpr const char* kTrackingParams = "tracking";
inline constexpr const char* kInferenceMeta = "YoloInferenceMeta";
inline constexpr const char* kDetectionsMessage = "yolo-detections";
inline constexpr const char* kStatusMessage = "yolo-status";

// The detections as their ROI metas carry them: boxes rounded outwards to whole pixels and
// clipped to the frame. What `draw=true` draws, so that it equals yolooverlay on the metas.
std::vector<Detection> as_roi_boxes(std::vector<Detection> detections, int width, int height);
// The same into `boxes`, whose elements are reused (a stream's steady state allocates nothing).
void as_roi_boxes(const std::vector<Detection>& detections, int width, int height,
                  std::vector<Detection>& boxes);

// One ROI meta per detection, in order; a detection with track_id > 0 also gets its "tracking"
// structure and roi->id.
void attach_roi_metas(GstBuffer* buffer, const std::vector<Detection>& detections, int width,
                      int height);

// Moves a region to `box` (frame pixels): the ROI rectangle as attach_roi_metas rounds it, and the
// "detection" structure's normalised corners (when it has one).
void set_roi_box(GstVideoRegionOfInterestMeta* roi, const Detection& box, int width, int height);

// Gives a region its track: roi->id and the "tracking" structure (added, or updated in place).
// frames_tracked <= 0 leaves that field out.
void set_roi_track(GstVideoRegionOfInterestMeta* roi, int64_t track_id, int64_t frames_tracked = 0);

// The detection a region carries with its exact box (the normalised corners times width x height;
// the ROI rectangle when the corners are missing), its track id when tracked; nullopt for a region
// without a "detection" structure. What a tracker reads.
std::optional<Detection> roi_detection(const GstVideoRegionOfInterestMeta* roi, int width,
                                       int height);

// Which regions read_roi_metas returns.
enum class RoiRegions {
  kDetections,  // only those with a "detection" structure (ours, or DL Streamer-shaped ones)
  kAll,         // also other elements' regions: named by their ROI type, confidence NaN
};

// Reads the ROI metas back (yolo-monitor, yolooverlay, tests, applications consuming the
// element's output), in the order they were attached, with track_id from the "tracking"
// structure (0 when untracked). A missing label falls back to the ROI type's name, then to
// "class N". Boxes are the ROI rectangles (whole pixels, what is drawn) unless the frame's
// width and height are given: then a detection's box is its exact sub-pixel one (roi_detection),
// what results and JSON should report.
std::vector<Detection> read_roi_metas(GstBuffer* buffer,
                                      RoiRegions regions = RoiRegions::kDetections, int width = 0,
                                      int height = 0);

// The inference marker described above. mark_inference registers the meta on first use (the
// plugin also registers it when it loads); inference_mark is nullopt when the frame has none
// (it did not come from the `yolo` element).
void register_inference_meta();
void mark_inference(GstBuffer* buffer, bool inferred, guint64 frame);
std::optional<bool> inference_mark(GstBuffer* buffer);
// The marker's frame number (the `yolo` element's count from 0); nullopt without a marker.
std::optional<guint64> inference_frame(GstBuffer* buffer);

// The message structure described above (a detection's structure also has track-id, guint64,
// when track_id > 0); the caller owns it.
GstStructure* detections_structure(const std::string& stream_id, guint64 frame, GstClockTime pts,
                                   int width, int height, const std::vector<Detection>& detections);

}  // namespace yolo::gst
