// libgstyolo.so: registers the `yolo`, `yolotracker`, `yoloanalytics`, `yolopublish` and
// `yolooverlay` elements.
#include <gst/gst.h>

#include "debug.h"
#include "gst_yolo.h"
#include "gst_yolo_analytics.h"
#include "gst_yolo_overlay.h"
#include "gst_yolo_publish.h"
#include "gst_yolo_tracker.h"
#include "yolo/gst/analytics_meta.h"
#include "yolo/gst/detection_meta.h"

#ifndef PACKAGE
#define PACKAGE "yolo-edge"
#endif

static gboolean plugin_init(GstPlugin* plugin) {
  // Here, not only in the yolo element's class_init: the other elements log through it too, and
  // a pipeline may use them without a yolo element.
  GST_DEBUG_CATEGORY_INIT(gst_yolo_debug, "yolo", 0, "YOLO object detection");
  // Registered while the plugin loads, before any streaming thread can race to it.
  yolo::gst::register_inference_meta();
  yolo::gst::register_analytics_meta();
  gboolean ok = GST_ELEMENT_REGISTER(yolo, plugin);
  ok &= GST_ELEMENT_REGISTER(yolotracker, plugin);
  ok &= GST_ELEMENT_REGISTER(yolooverlay, plugin);
  ok &= GST_ELEMENT_REGISTER(yoloanalytics, plugin);
  ok &= GST_ELEMENT_REGISTER(yolopublish, plugin);
  return ok;
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, yolo, "YOLO object detection (yolo-edge)",
                  plugin_init, YOLO_VERSION, "Proprietary", "yolo-edge",
                  "https://example.invalid/yolo-edge")
