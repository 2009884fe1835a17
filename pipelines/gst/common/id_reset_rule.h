// When track ids start again at 1: the one rule yolotracker (its tracker) and yolooverlay (its
// trails) follow, so that a trail never joins two objects that happen to share an id.
//
// A new run of ids starts on STREAM_START (a new stream, e.g. the next file of a playlist or a
// camera reconnected through a new source), FLUSH_STOP (a flushing seek, or a flush of a looping
// player), a SEGMENT that differs from the previous one (a non-flushing seek, a new playback
// range) and CAPS with another frame size (the boxes before and after are in different pixels,
// and motion compensation cannot compare the frames). A repeated identical SEGMENT (sent again
// after a renegotiation, say) keeps the ids, and so does the first SEGMENT after a STREAM_START or
// FLUSH_STOP (the run already started there), and so do CAPS that keep the size.
// This is DeepStream nvtracker's tracking-id-reset-mode "reset on stream reset", without a mode to
// turn it off: ids of one element never run on from one stream into another.
#pragma once

#include <gst/gst.h>

#include <optional>
#include <utility>

namespace yolo::gst {

class IdResetRule {
 public:
  // True when `event` (a sink event, in stream order) starts a new run of ids.
  bool starts_over(GstEvent* event) {
    switch (GST_EVENT_TYPE(event)) {
      case GST_EVENT_STREAM_START:
      case GST_EVENT_FLUSH_STOP:
        segment_.reset();
        return true;
      case GST_EVENT_SEGMENT: {
        const GstSegment* segment = nullptr;
        gst_event_parse_segment(event, &segment);
        const bool changed = segment_ && !gst_segment_is_equal(&*segment_, segment);
        segment_ = *segment;
        return changed;
      }
      case GST_EVENT_CAPS: {
        GstCaps* caps = nullptr;
        gst_event_parse_caps(event, &caps);
        const GstStructure* s = gst_caps_get_size(caps) ? gst_caps_get_structure(caps, 0) : nullptr;
        std::pair<int, int> size{0, 0};
        if (!s || !gst_structure_get_int(s, "width", &size.first) ||
            !gst_structure_get_int(s, "height", &size.second))
          return false;
        const bool changed = size_ && *size_ != size;
        size_ = size;
        return changed;
      }
      default:
        return false;
    }
  }

  // Forgets the segment and the frame size (the element stopped).
  void clear() {
    segment_.reset();
    size_.reset();
  }

 private:
  std::optional<GstSegment> segment_;
  std::optional<std::pair<int, int>> size_;  // width, height of the last caps
};

}  // namespace yolo::gst
