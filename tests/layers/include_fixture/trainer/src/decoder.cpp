// A deliberate violation for the include check's own test: trainer code including GStreamer
// itself instead of going through yolo/media/. Never compiled.
#include <gst/gst.h>

#include "yolo/media/frame_decoder.h"
