// The `yolooverlay` element: draws the region-of-interest metas on raw video frames (see
// gst_yolo_overlay.cpp for the element documentation that gst-inspect-1.0 shows).
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_YOLO_OVERLAY (gst_yolo_overlay_get_type())
G_DECLARE_FINAL_TYPE(GstYoloOverlay, gst_yolo_overlay, GST, YOLO_OVERLAY, GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(yolooverlay);

G_END_DECLS

// Plain data only: GObject allocates and zeroes the instance. Properties are read and written
// under the object lock (they may change while frames flow); the caps only on the streaming
// thread.
struct _GstYoloOverlay {
  GstBaseTransform parent;
  gboolean show_labels;
  gboolean show_confidence;
  gint line_width;  // 0: from the frame size, as Ultralytics
  GstVideoInfo info;
  gint format;  // yolo::PixelFormat of the negotiated caps
};
