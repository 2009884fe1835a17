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
#include <new>
#include <optional>

#include "analytics_drawing.h"
#include "debug.h"
#include "id_reset_rule.h"
#include "track_trails.h"
#include "video_frames.h"
#include "yolo/gst/detection_meta.h"

namespace yolo::gst {

// The trails and when to forget them: ids start again upstream by the same rule.
struct OverlayTrails {
  TrackTrails trails;
  IdResetRule resets;
};

}  // namespace yolo::gst

namespace {

using yolo::AnnotateOptions;
using yolo::Detection;
using yolo::PixelFormat;

enum { PROP_0, PROP_SHOW_LABELS, PROP_SHOW_CONFIDENCE, PROP_LINE_WIDTH, PROP_TRAILS };

constexpr gboolean kDefaultShowLabels = TRUE, kDefaultShowConfidence = TRUE;
constexpr gint kDefaultLineWidth = 0;
constexpr guint kDefaultTrails = 0, kMaxTrails = 10000;

}  // namespace

static GstStaticPadTemplate overlay_sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(YOLO_VIDEO_CAPS));
static GstStaticPadTemplate overlay_src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(YOLO_VIDEO_CAPS));

G_DEFINE_TYPE(GstYoloOverlay, gst_yolo_overlay, GST_TYPE_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(yolooverlay, "yolooverlay", GST_RANK_NONE, GST_TYPE_YOLO_OVERLAY)

namespace {

void set_property(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
  GstYoloOverlay* self = GST_YOLO_OVERLAY(object);
  GST_OBJECT_LOCK(self);
  switch (id) {
    case PROP_SHOW_LABELS:
      self->show_labels = g_value_get_boolean(value);
      break;
    case PROP_SHOW_CONFIDENCE:
      self->show_confidence = g_value_get_boolean(value);
      break;
    case PROP_LINE_WIDTH:
      self->line_width = g_value_get_int(value);
      break;
    case PROP_TRAILS:
      self->trails = g_value_get_uint(value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
}

void get_property(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
  GstYoloOverlay* self = GST_YOLO_OVERLAY(object);
  GST_OBJECT_LOCK(self);
  switch (id) {
    case PROP_SHOW_LABELS:
      g_value_set_boolean(value, self->show_labels);
      break;
    case PROP_SHOW_CONFIDENCE:
      g_value_set_boolean(value, self->show_confidence);
      break;
    case PROP_LINE_WIDTH:
      g_value_set_int(value, self->line_width);
      break;
    case PROP_TRAILS:
      g_value_set_uint(value, self->trails);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
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
  DrawSettings s;
  GST_OBJECT_LOCK(self);
  s.annotate.show_labels = self->show_labels;
  s.annotate.show_conf = self->show_confidence;
  s.annotate.line_width = self->line_width;
  s.trails = self->trails;
  GST_OBJECT_UNLOCK(self);
  return s;
}

// The trails to draw on this frame (none with trails=0, when the history is also let go).
std::vector<yolo::gst::TrailDrawing> trails_of(GstYoloOverlay* self,
                                               const std::vector<Detection>& regions,
                                               const DrawSettings& s) {
  yolo::gst::TrackTrails& trails = self->trail_state->trails;
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
  if (self->trail_state->resets.starts_over(event)) self->trail_state->trails.clear();
  return GST_BASE_TRANSFORM_CLASS(gst_yolo_overlay_parent_class)->sink_event(trans, event);
}

gboolean stop(GstBaseTransform* trans) {
  GstYoloOverlay* self = GST_YOLO_OVERLAY(trans);
  self->trail_state->trails.clear();
  self->trail_state->resets.clear();
  return TRUE;
}

void finalize(GObject* object) {
  GST_YOLO_OVERLAY(object)->trail_state.~unique_ptr();
  G_OBJECT_CLASS(gst_yolo_overlay_parent_class)->finalize(object);
}

// Upstream may send padded frames (GstVideoMeta), and the ROI metas are what this element reads.
gboolean propose_allocation(GstBaseTransform* trans, GstQuery* decide_query, GstQuery* q) {
  return yolo::gst::propose_with_frame_metas(
      GST_BASE_TRANSFORM_CLASS(gst_yolo_overlay_parent_class), trans, decide_query, q);
}

constexpr auto kPlaying = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                                   GST_PARAM_MUTABLE_PLAYING);

}  // namespace

static void gst_yolo_overlay_class_init(GstYoloOverlayClass* klass) {
  GObjectClass* object_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  object_class->set_property = set_property;
  object_class->get_property = get_property;
  object_class->finalize = finalize;

  g_object_class_install_property(
      object_class, PROP_SHOW_LABELS,
      g_param_spec_boolean("show-labels", "Show labels",
                           "Draw a label tab above each box (the class name or region type)",
                           kDefaultShowLabels, kPlaying));
  g_object_class_install_property(
      object_class, PROP_SHOW_CONFIDENCE,
      g_param_spec_boolean("show-confidence", "Show confidence",
                           "Follow the class name with the confidence (\"person 0.87\")",
                           kDefaultShowConfidence, kPlaying));
  g_object_class_install_property(
      object_class, PROP_LINE_WIDTH,
      g_param_spec_int("line-width", "Line width",
                       "Box line width in pixels; 0: from the frame size, as Ultralytics' plots", 0,
                       64, kDefaultLineWidth, kPlaying));
  g_object_class_install_property(
      object_class, PROP_TRAILS,
      g_param_spec_uint("trails", "Trails",
                        "Draw each tracked region's path: a line through the centres of its last "
                        "N boxes (regions with a track id, e.g. from yolotracker). 0: no trails",
                        0, kMaxTrails, kDefaultTrails, kPlaying));

  gst_element_class_set_static_metadata(
      element_class, "YOLO detection overlay", "Filter/Effect/Video",
      "Draws the region of interest metas (detections of the yolo element or any other) as "
      "boxes with labels onto the frames; tracked ones with their id and, with trails, their path",
      "yolo-edge developers");
  gst_element_class_add_static_pad_template(element_class, &overlay_sink_template);
  gst_element_class_add_static_pad_template(element_class, &overlay_src_template);

  trans_class->set_caps = set_caps;
  trans_class->sink_event = sink_event;
  trans_class->stop = stop;
  trans_class->transform_ip = transform_ip;
  trans_class->propose_allocation = propose_allocation;
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;
}

static void gst_yolo_overlay_init(GstYoloOverlay* self) {
  self->show_labels = kDefaultShowLabels;
  self->show_confidence = kDefaultShowConfidence;
  self->line_width = kDefaultLineWidth;
  self->trails = kDefaultTrails;
  new (&self->trail_state)
      std::unique_ptr<yolo::gst::OverlayTrails>(std::make_unique<yolo::gst::OverlayTrails>());
  gst_video_info_init(&self->info);
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}
