// libgstyolo.so: registers the `yolo` element.
#include <gst/gst.h>

#include "gst_yolo.h"

#ifndef PACKAGE
#define PACKAGE "yolo-edge"
#endif

static gboolean plugin_init(GstPlugin* plugin) {
  return GST_ELEMENT_REGISTER(yolo, plugin);
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, yolo, "YOLO object detection (yolo-edge)",
                  plugin_init, YOLO_VERSION, "Proprietary", "yolo-edge",
                  "https://example.invalid/yolo-edge")
