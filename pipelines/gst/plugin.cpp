// libgstyolo.so: registers the `yolo` and `yolooverlay` elements.
#include <gst/gst.h>

#include "gst_yolo.h"
#include "gst_yolo_overlay.h"

#ifndef PACKAGE
#define PACKAGE "yolo-edge"
#endif

static gboolean plugin_init(GstPlugin* plugin) {
  gboolean ok = GST_ELEMENT_REGISTER(yolo, plugin);
  ok &= GST_ELEMENT_REGISTER(yolooverlay, plugin);
  return ok;
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, yolo, "YOLO object detection (yolo-edge)",
                  plugin_init, YOLO_VERSION, "Proprietary", "yolo-edge",
                  "https://example.invalid/yolo-edge")
