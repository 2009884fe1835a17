#include "yolo/media/frame_colours.h"

#include <gst/video/video.h>
#include <spdlog/spdlog.h>

#include <opencv2/core/utility.hpp>

#include <cstring>
#include <optional>
#include <stdexcept>

#include "bitstream_range.h"
#include "mp4_colour_box.h"
#include "yolo/media/gst_handles.h"
#include "yolo/media/media_source.h"

namespace yolo::media {
namespace {

bool parse_colorimetry(const GstStructure* s, GstVideoColorimetry& out) {
  const char* text = s ? gst_structure_get_string(s, "colorimetry") : nullptr;
  return text && gst_video_colorimetry_from_string(&out, text);
}

void free_text(gpointer text, GClosure*) {
  g_free(text);
}

// data: the file's path ("" for other sources).
GstPadProbeReturn on_demuxer_event(GstPad*, GstPadProbeInfo* info, gpointer data) {
  GstEvent* event = GST_PAD_PROBE_INFO_EVENT(info);
  if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS) return GST_PAD_PROBE_OK;
  GstCaps* caps = nullptr;
  gst_event_parse_caps(event, &caps);
  const GstStructure* s =
      caps && gst_caps_get_size(caps) > 0 ? gst_caps_get_structure(caps, 0) : nullptr;
  GstVideoColorimetry c;
  if (!s || !g_str_has_prefix(gst_structure_get_name(s), "video/") || !parse_colorimetry(s, c))
    return GST_PAD_PROBE_OK;
  // What the container says: the file's own box when it can be read; else qtdemux's caps, whose
  // "limited" may be its misreading (so says nothing) and whose "full" is right.
  const char* path = static_cast<const char*>(data);
  std::optional<bool> container = *path ? mp4_full_range_flag(path) : std::nullopt;
  if (!container && c.range == GST_VIDEO_COLOR_RANGE_0_255) container = true;
  // The stream's own word wins where it has one, as FFmpeg decodes (and so Ultralytics sees).
  const std::optional<bool> stream = bitstream_full_range(caps);
  if (stream && container && *stream != *container) {
    spdlog::info(
        "{}: the MP4 colour box says {} range and the {} stream says {} range: decoded as the "
        "stream says (as FFmpeg does)",
        *path ? path : "video", *container ? "full" : "limited",
        g_str_has_suffix(gst_structure_get_name(s), "h265") ? "H.265" : "H.264",
        *stream ? "full" : "limited");
  }
  const std::optional<bool> full = stream ? stream : container;
  const GstVideoColorRange range = !full   ? GST_VIDEO_COLOR_RANGE_UNKNOWN
                                   : *full ? GST_VIDEO_COLOR_RANGE_0_255
                                           : GST_VIDEO_COLOR_RANGE_16_235;
  if (range == c.range) return GST_PAD_PROBE_OK;
  // Unknown: the decoder takes the range from the bitstream, as FFmpeg does.
  c.range = range;
  GCharPtr text(gst_video_colorimetry_to_string(&c));
  GstCapsPtr repaired(gst_caps_copy(caps));
  gst_caps_set_simple(repaired.get(), "colorimetry", G_TYPE_STRING, text.get(), nullptr);
  GST_PAD_PROBE_INFO_DATA(info) = gst_event_new_caps(repaired.get());
  gst_event_unref(event);
  return GST_PAD_PROBE_OK;
}

void on_demuxer_pad(GstElement*, GstPad* pad, gpointer path) {
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_demuxer_event,
                    g_strdup(static_cast<const char*>(path)), g_free);
}

void on_element_added(GstBin*, GstBin*, GstElement* element, gpointer path) {
  GstElementFactory* factory = gst_element_get_factory(element);
  const char* name = factory ? gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(factory)) : nullptr;
  if (name && std::strcmp(name, "qtdemux") == 0)
    g_signal_connect_data(element, "pad-added", G_CALLBACK(on_demuxer_pad),
                          g_strdup(static_cast<const char*>(path)), free_text, GConnectFlags{});
}

}  // namespace

FrameColours frame_colours(const GstCaps* caps) {
  FrameColours colours;
  GstVideoColorimetry c;
  const GstStructure* s =
      caps && gst_caps_get_size(caps) > 0 ? gst_caps_get_structure(caps, 0) : nullptr;
  if (!parse_colorimetry(s, c)) return colours;
  switch (c.matrix) {
    case GST_VIDEO_COLOR_MATRIX_BT601:
    case GST_VIDEO_COLOR_MATRIX_FCC:  // Kr 0.30, Kb 0.11: BT.601 to within a level
      colours.matrix_from_stream = true;
      break;
    case GST_VIDEO_COLOR_MATRIX_BT709:
    case GST_VIDEO_COLOR_MATRIX_SMPTE240M:
    case GST_VIDEO_COLOR_MATRIX_BT2020:
      colours.matrix = YuvMatrix::kBT709;
      colours.matrix_from_stream = true;
      break;
    default:  // unknown (or RGB, which YUV frames cannot be): FFmpeg's default
      break;
  }
  if (c.range == GST_VIDEO_COLOR_RANGE_0_255 || c.range == GST_VIDEO_COLOR_RANGE_16_235) {
    colours.range = c.range == GST_VIDEO_COLOR_RANGE_0_255 ? YuvRange::kFull : YuvRange::kLimited;
    colours.range_from_stream = true;
  }
  return colours;
}

void yuv_frame_to_bgr(const GstVideoFrame& frame, const FrameColours& colours, cv::Mat& bgr) {
  const bool nv12 = GST_VIDEO_FRAME_FORMAT(&frame) == GST_VIDEO_FORMAT_NV12;
  auto data = [&](int p) {
    return static_cast<const uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
  };
  YuvPlanes planes;
  planes.y = data(0);
  planes.u = data(1);
  planes.v = nv12 ? planes.u + 1 : data(2);
  planes.y_stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
  planes.u_stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 1);
  planes.v_stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, nv12 ? 1 : 2);
  planes.interleaved = nv12;
  planes.width = bgr.cols;
  const YuvCoefficients c = yuv_coefficients(colours.matrix, colours.range);
  cv::parallel_for_(cv::Range(0, bgr.rows), [&](const cv::Range& rows) {
    yuv_rows_to_bgr(planes, c, rows.start, rows.end, bgr.data, bgr.step[0]);
  });
}

void repair_container_range(GstElement* pipeline, const std::string& uri) {
  std::string path;
  if (classify_uri(uri) == SourceKind::kFile) {
    try {
      path = local_file_path(uri);
    } catch (const std::invalid_argument&) {
      // Not a usable file URI: the pipeline reports it; the range comes from the bitstream.
    }
  }
  g_signal_connect_data(pipeline, "deep-element-added", G_CALLBACK(on_element_added),
                        g_strdup(path.c_str()), free_text, GConnectFlags{});
}

}  // namespace yolo::media
