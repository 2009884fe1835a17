// GObject glue for the `yolooverlay` element; it has no logic file: it draws with the shared
// helpers video_frames.h, track_trails.h and analytics_drawing.h.
/**
 * SECTION:element-yolooverlay
 * @title: yolooverlay
 *
 * Draws the region-of-interest metas of each frame: boxes in class colours with a label tab
 * ("person 0.87"), as `yolo draw=true` and Ultralytics' plots do. Regions with a "detection"
 * params structure (the `yolo` element's, or another detector's of the same shape) are labelled
 * with their class and confidence; other elements' regions (another analyser's, say) with their
 * ROI type. Tracked regions (a "tracking" structure, from yolotracker) are labelled with their id
 * first ("id:3 person 0.87"), and with trails=N also get a line through the centres of their last
 * N boxes. Lines and zones of yoloanalytics (its YoloAnalyticsMeta) are drawn too, each with its
 * live count ("entrance in 3 out 1", "queue 2 inside"). Frames without regions or analytics pass
 * through unmapped and uncopied. With the `yolo` element's
 * default inference-interval of 1, `yolo ! yolooverlay` gives the same pixels as
 * `yolo draw=true`; between inferences the `yolo` element attaches no metas, so there is nothing
 * to draw on those frames.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -e filesrc location=video.mp4 ! decodebin ! videoconvert ! \
 *     yolo model=best.pt ! yolooverlay ! videoconvert ! x264enc ! mp4mux ! \
 *     filesink location=annotated.mp4
 * ]|
 */
#include "gst_yolo_overlay.h"

#include <gst/video/gstvideometa.h>

#include <exception>
#include <optional>

#include "analytics_drawing.h"
#include "debug.h"
#include "element_glue.h"
#include "id_reset_rule.h"
#include "track_trails.h"
#include "video_frames.h"
#include "yolo/gst/detection_meta.h"

namespace yolo::gst {

// The element's properties (the table below), all read per frame.
struct OverlaySettings {
  bool show_labels = true;
  bool show_confidence = true;
  int line_width = 0;   // 0: from the frame size, as Ultralytics
  unsigned trails = 0;  // points per track trail; 0: no trails
};

// The trails and when to forget them: ids start again upstream by the same rule.
struct OverlayTrails {
  explicit OverlayTrails(GstBaseTransform*) {}
  TrackTrails trails;
  IdResetRule resets;
};

}  // namespace yolo::gst

namespace {

using yolo::AnnotateOptions;
using yolo::Detection;
using yolo::PixelFormat;
using yolo::gst::Change;
using yolo::gst::OverlaySettings;
using yolo::gst::PropertyTable;

}  // namespace

G_DEFINE_TYPE(GstYoloOverlay, gst_yolo_overlay, GST_TYPE_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(yolooverlay, "yolooverlay", GST_RANK_NONE, GST_TYPE_YOLO_OVERLAY)

namespace {

const PropertyTable<OverlaySettings>& properties() {
  using S = OverlaySettings;
  static const PropertyTable<S> table =
      PropertyTable<S>()
          .flag("show-labels", "Show labels",
                "Draw a label tab above each box (the class name or region type)", &S::show_labels,
                Change::kPlaying)
          .flag("show-confidence", "Show confidence",
                "Follow the class name with the confidence (\"person 0.87\")", &S::show_confidence,
                Change::kPlaying)
          .integer("line-width", "Line width",
                   "Box line width in pixels; 0: from the frame size, as Ultralytics' plots",
                   &S::line_width, 0, 64, Change::kPlaying)
          .count("trails", "Trails",
                 "Draw each tracked region's path: a line through the centres of its last N boxes "
                 "(regions with a track id, e.g. from yolotracker). 0: no trails",
                 &S::trails, 0, 10000, Change::kPlaying);
  return table;
}

using Glue = yolo::gst::ElementGlue<GstYoloOverlay, OverlaySettings, properties>;

// Values set out of range before start fail it, naming them.
gboolean start(GstBaseTransform* trans) {
  const OverlaySettings s = Glue::settings(trans);
  return yolo::gst::settings_in_range(GST_ELEMENT(trans), properties().problems(s));
}

gboolean set_caps(GstBaseTransform* trans, GstCaps* incaps, GstCaps*) {
  GstYoloOverlay* self = GST_YOLO_OVERLAY(trans);
  GstVideoInfo info;
  if (!gst_video_info_from_caps(&info, incaps)) return FALSE;
  const auto format = yolo::gst::pixel_format_of(GST_VIDEO_INFO_FORMAT(&info));
  if (!format) return FALSE;  // the pad template keeps other formats out
  if (!yolo::gst::frame_size_supported(GST_ELEMENT(trans), *format, info)) return FALSE;
  self->info = info;
  self->format = static_cast<gint>(*format);
  return TRUE;
}

// The properties a frame is drawn with, read together under the object lock.
struct DrawSettings {
  AnnotateOptions annotate;
  guint trails = 0;
};

DrawSettings settings_of(GstYoloOverlay* self) {
  const OverlaySettings o = Glue::settings(self);
  DrawSettings s;
  s.annotate.show_labels = o.show_labels;
  s.annotate.show_conf = o.show_confidence;
  s.annotate.line_width = o.line_width;
  s.trails = o.trails;
  return s;
}

// The trails to draw on this frame (none with trails=0, when the history is also let go).
std::vector<yolo::gst::TrailDrawing> trails_of(GstYoloOverlay* self,
                                               const std::vector<Detection>& regions,
                                               const DrawSettings& s) {
  yolo::gst::TrackTrails& trails = self->impl->trails;
  if (s.trails == 0) {
    trails.clear();
    return {};
  }
  const int lw = s.annotate.line_width > 0
                     ? s.annotate.line_width
                     : yolo::default_line_width(GST_VIDEO_INFO_HEIGHT(&self->info),
                                                GST_VIDEO_INFO_WIDTH(&self->info));
  return trails.update(regions, s.trails, lw);
}

// A frame that cannot be drawn on is passed on as it is, with a warning: an overlay is not worth
// stopping a camera's pipeline for.
GstFlowReturn transform_ip(GstBaseTransform* trans, GstBuffer* buffer) {
  GstYoloOverlay* self = GST_YOLO_OVERLAY(trans);
  std::vector<Detection> regions = yolo::gst::read_roi_metas(buffer, yolo::gst::RoiRegions::kAll);
  const std::optional<yolo::gst::AnalyticsMetaFields> analytics =
      yolo::gst::read_analytics_meta(buffer);
  if (regions.empty() && !analytics) return GST_FLOW_OK;  // nothing to draw: not even mapped
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, &self->info, buffer, GST_MAP_READWRITE)) {
    GST_WARNING_OBJECT(self, "a frame could not be mapped for writing; passed on without boxes");
    return GST_FLOW_OK;
  }
  const DrawSettings s = settings_of(self);
  try {
    const auto format = static_cast<PixelFormat>(self->format);
    const int lw = s.annotate.line_width > 0
                       ? s.annotate.line_width
                       : yolo::default_line_width(GST_VIDEO_INFO_HEIGHT(&self->info),
                                                  GST_VIDEO_INFO_WIDTH(&self->info));
    if (analytics) {
      // Lines and zones first, behind everything; their count labels with the boxes' labels.
      yolo::gst::AnalyticsDrawing a = yolo::gst::analytics_drawing(*analytics, lw);
      yolo::gst::draw_trails(frame, format, a.shapes);
      yolo::gst::draw_detections(frame, format, a.labels, s.annotate);
    }
    yolo::gst::draw_trails(frame, format, trails_of(self, regions, s));  // behind the boxes
    yolo::gst::draw_detections(frame, format, regions, s.annotate);
  } catch (const std::exception& e) {
    GST_WARNING_OBJECT(self, "drawing failed (%s); frame passed on without boxes", e.what());
  }
  gst_video_frame_unmap(&frame);
  return GST_FLOW_OK;
}

// Ids start again upstream (yolotracker follows the same rule): a new id 1 must not continue the
// old id 1's trail.
gboolean sink_event(GstBaseTransform* trans, GstEvent* event) {
  GstYoloOverlay* self = GST_YOLO_OVERLAY(trans);
  if (self->impl->resets.starts_over(event)) self->impl->trails.clear();
  return GST_BASE_TRANSFORM_CLASS(gst_yolo_overlay_parent_class)->sink_event(trans, event);
}

gboolean stop(GstBaseTransform* trans) {
  GstYoloOverlay* self = GST_YOLO_OVERLAY(trans);
  self->impl->trails.clear();
  self->impl->resets.clear();
  return TRUE;
}

}  // namespace

static void gst_yolo_overlay_class_init(GstYoloOverlayClass* klass) {
  GObjectClass* object_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  Glue::init_class(object_class, nullptr);

  gst_element_class_set_static_metadata(
      element_class, "YOLO detection overlay", "Filter/Effect/Video",
      "Draws the region of interest metas (detections of the yolo element or any other) as "
      "boxes with labels onto the frames; tracked ones with their id and, with trails, their path",
      "yolo-edge developers");
  yolo::gst::init_video_filter_class(element_class, trans_class);

  trans_class->start = start;
  trans_class->set_caps = set_caps;
  trans_class->sink_event = sink_event;
  trans_class->stop = stop;
  trans_class->transform_ip = transform_ip;
}

static void gst_yolo_overlay_init(GstYoloOverlay* self) {
  Glue::init_instance(self);
  gst_video_info_init(&self->info);
}
