// A leaky queue that keeps every frame with its own caps.
//
// `queue leaky=downstream` stores a caps event it leaks on its source pad as a sticky event, to
// be sent before the next frame it pushes. When its streaming thread has already taken an older
// frame off the queue but not yet pushed it, that frame is the one pushed next: it goes out after
// the new caps and arrives at the next element with a size the caps do not describe (GStreamer
// 1.22, gst_queue_leak_downstream). On a loaded two-core box this happened at about one resolution
// change in eight, and the element that maps the frame fails the stream.
//
// The guard closes the window: before a changed caps event enters the queue, the streaming thread
// upstream waits until the queue has pushed every frame before it (a serialized drain query
// through the queue, answered at its source pad so that it goes no further downstream). The wait
// happens once per caps change and lasts at most one frame's push.
#pragma once

#include <gst/gst.h>

namespace yolo::media {

// Installs the guard on a `queue` element's pads (for the pads' lifetime; call before the queue
// sees data). Any queue may have it; it only matters for leaky=downstream. Returns false when
// `queue` has no "sink" and "src" pads.
bool keep_caps_with_frames(GstElement* queue);

}  // namespace yolo::media
