// Allowed: the media library includes GStreamer. Never compiled.
#include <gst/gst.h>

#include "yolo/core/error.h"
