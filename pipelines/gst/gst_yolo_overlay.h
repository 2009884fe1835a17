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
struct OverlayTrails;  // the trails' state (gst_yolo_overlay.cpp)
}

// Properties are read and written under the object lock (they may change while frames flow); the
// caps and the trails only on the streaming thread.
struct _GstYoloOverlay {
  GstBaseTransform parent;
  gboolean show_labels;
  gboolean show_confidence;
  gint line_width;  // 0: from the frame size, as Ultralytics
  guint trails;     // points per track trail; 0: no trails
  GstVideoInfo info;
  gint format;  // yolo::PixelFormat of the negotiated caps
  // Constructed in instance_init with placement new, destroyed in finalize: GObject allocates
  // the instance, so its C++ member must be built and torn down by hand.
  std::unique_ptr<yolo::gst::OverlayTrails> trail_state;
};
