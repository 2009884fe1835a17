#include "yolo/media/leaky_queue.h"

#include "yolo/media/gst_handles.h"

namespace yolo::media {
namespace {

// Marks the guard's own drain query, so that the source pad answers it and nothing else.
constexpr char kGuardDrain[] = "yolo-caps-order-drain";

GstPadProbeReturn before_caps_enter(GstPad* sink, GstPadProbeInfo* info, gpointer) {
  GstEvent* event = GST_PAD_PROBE_INFO_EVENT(info);
  if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS) return GST_PAD_PROBE_OK;
  GstCaps* next = nullptr;
  gst_event_parse_caps(event, &next);
  // Probes run before the pad stores the event: the current caps are still the old ones.
  const GstCapsPtr current(gst_pad_get_current_caps(sink));
  if (!current || !next || gst_caps_is_equal(current.get(), next)) return GST_PAD_PROBE_OK;
  GstQuery* drain = gst_query_new_drain();
  gst_structure_set(gst_query_writable_structure(drain), kGuardDrain, G_TYPE_BOOLEAN, TRUE,
                    nullptr);
  // Serialized: the queue answers it from its streaming thread after pushing everything queued
  // before it, and this (the only upstream) thread pushes nothing meanwhile, so nothing leaks.
  // A flushing or stopping queue answers at once.
  gst_pad_query(sink, drain);
  gst_query_unref(drain);
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn answer_guard_drain(GstPad*, GstPadProbeInfo* info, gpointer) {
  GstQuery* query = GST_PAD_PROBE_INFO_QUERY(info);
  if (GST_QUERY_TYPE(query) != GST_QUERY_DRAIN) return GST_PAD_PROBE_OK;
  const GstStructure* s = gst_query_get_structure(query);
  if (!s || !gst_structure_has_field(s, kGuardDrain)) return GST_PAD_PROBE_OK;
  return GST_PAD_PROBE_HANDLED;  // answered (true) here: downstream never sees it
}

}  // namespace

bool keep_caps_with_frames(GstElement* queue) {
  const GstPadPtr sink(gst_element_get_static_pad(queue, "sink"));
  const GstPadPtr src(gst_element_get_static_pad(queue, "src"));
  if (!sink || !src) return false;
  gst_pad_add_probe(sink.get(), GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, &before_caps_enter, nullptr,
                    nullptr);
  gst_pad_add_probe(src.get(), GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, &answer_guard_drain, nullptr,
                    nullptr);
  return true;
}

}  // namespace yolo::media
