// The `yolo` GST_DEBUG category (GST_DEBUG=yolo:5), shared by the plugin's files.
#pragma once

#include <gst/gst.h>

GST_DEBUG_CATEGORY_EXTERN(gst_yolo_debug);
#define GST_CAT_DEFAULT gst_yolo_debug
