// GObject glue for the `yolooverlay` element; it has no logic file: it draws with the shared
// helpers video_frames.h, track_trails.h and analytics_drawing.h.
//
// Draws the region-of-interest metas on raw video frames (gst_yolo_overlay.cpp has the element
// documentation that gst-inspect-1.0 shows).
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include <memory>

G_BEGIN_DECLS

#define GST_TYPE_YOLO_OVERLAY (gst_yolo_overlay_get_type())
G_DECLARE_FINAL_TYPE(GstYoloOverlay, gst_yolo_overlay, GST, YOLO_OVERLAY, GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(yolooverlay);

G_END_DECLS

namespace yolo::gst {
struct OverlaySettings;  // the element's properties (gst_yolo_overlay.cpp)
struct OverlayTrails;    // the trails' state (gst_yolo_overlay.cpp)
}  // namespace yolo::gst

struct _GstYoloOverlay {
  GstBaseTransform parent;
  GstVideoInfo info;
  gint format;  // yolo::PixelFormat of the negotiated caps
  // Built in instance_init and torn down in finalize (element_glue.h's construct_member).
  std::unique_ptr<yolo::gst::OverlaySettings> settings;  // under the object lock
  std::unique_ptr<yolo::gst::OverlayTrails> impl;        // the trails
};
