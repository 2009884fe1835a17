// H.264 encoding of annotated frames through GStreamer's appsrc (the C API, so that buffers get
// exact timestamps and errors come from the bus with the element's own message).
#include <fmt/format.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <stdexcept>

#include "gst_handles.h"
#include "video_writer.h"
#include "yolo/core/strings.h"

namespace yolo::predict {
namespace {

struct Muxer {
  const char* extension;
  const char* element;
  const char* package;
};
constexpr Muxer kMuxers[] = {{"mp4", "mp4mux", "gstreamer1.0-plugins-good"},
                             {"m4v", "mp4mux", "gstreamer1.0-plugins-good"},
                             {"mov", "qtmux", "gstreamer1.0-plugins-good"},
                             {"mkv", "matroskamux", "gstreamer1.0-plugins-good"},
                             {"avi", "avimux", "gstreamer1.0-plugins-good"}};

const Muxer* muxer_for(std::string ext) {
  ext = lower(ext);
  if (!ext.empty() && ext[0] == '.') ext.erase(0, 1);
  for (const Muxer& m : kMuxers)
    if (ext == m.extension) return &m;
  return nullptr;
}

class GstH264Encoder : public VideoEncoder {
 public:
  GstH264Encoder(const std::filesystem::path& file, cv::Size size, double fps) : size_(size) {
    if (const std::string why = gst_h264_unavailable_reason(file.extension().string());
        !why.empty())
      throw std::runtime_error(why);
    const Muxer* mux = muxer_for(file.extension().string());
    // Key frame every 2 s so that players can seek.
    const int gop = std::max(1, static_cast<int>(2 * fps));
    const std::string description = fmt::format(
        "appsrc name=frames format=time ! videoconvert ! video/x-raw,format=I420 ! "
        "x264enc speed-preset=ultrafast key-int-max={} ! h264parse ! {} ! filesink name=file",
        gop, mux->element);
    GError* raw = nullptr;
    GstElement* parsed = gst_parse_launch(description.c_str(), &raw);
    GErrorPtr error(raw);
    pipeline_ = OwnedPipeline(parsed);
    if (!parsed || error) {
      throw std::runtime_error(fmt::format("GStreamer cannot build the encoder '{}': {}",
                                           description, error ? error->message : "unknown"));
    }
    GstElementPtr sink(gst_bin_get_by_name(GST_BIN(parsed), "file"));
    g_object_set(sink.get(), "location", file.c_str(), nullptr);
    appsrc_.reset(gst_bin_get_by_name(GST_BIN(parsed), "frames"));

    gst_video_info_set_format(&info_, GST_VIDEO_FORMAT_BGR, static_cast<guint>(size.width),
                              static_cast<guint>(size.height));
    gst_util_double_to_fraction(fps, &info_.fps_n, &info_.fps_d);
    GstCapsPtr caps(gst_video_info_to_caps(&info_));
    // block: a full queue (200 kB by default) makes write() wait for the encoder instead of
    // buffering the whole video in memory.
    g_object_set(appsrc_.get(), "caps", caps.get(), "block", TRUE, nullptr);
    bus_.reset(gst_element_get_bus(parsed));
    if (gst_element_set_state(parsed, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
      fail("the encoder refused to start");
  }

  void write(const cv::Mat& bgr) override {
    check_bus();
    const gsize bytes = GST_VIDEO_INFO_SIZE(&info_);
    GstBuffer* buffer = gst_buffer_new_allocate(nullptr, bytes, nullptr);
    GstMapInfo map;
    gst_buffer_map(buffer, &map, GST_MAP_WRITE);
    // GStreamer's BGR rows are padded to 4 bytes; copy row by row.
    const auto stride = static_cast<size_t>(GST_VIDEO_INFO_PLANE_STRIDE(&info_, 0));
    const size_t row = static_cast<size_t>(size_.width) * 3;
    for (int y = 0; y < size_.height; ++y)
      std::memcpy(map.data + y * stride, bgr.ptr<uint8_t>(y), row);
    gst_buffer_unmap(buffer, &map);
    const GstClockTime frame = gst_util_uint64_scale_int(GST_SECOND, info_.fps_d, info_.fps_n);
    GST_BUFFER_PTS(buffer) = static_cast<GstClockTime>(frames_) * frame;
    GST_BUFFER_DURATION(buffer) = frame;
    ++frames_;
    if (gst_app_src_push_buffer(GST_APP_SRC(appsrc_.get()), buffer) != GST_FLOW_OK)
      fail("the encoder stopped accepting frames");
  }

  void finish() override {
    gst_app_src_end_of_stream(GST_APP_SRC(appsrc_.get()));
    // The muxer writes its index at end of stream; wait for it (or for an error).
    GstMessagePtr msg(gst_bus_timed_pop_filtered(
        bus_.get(), GST_CLOCK_TIME_NONE,
        static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR)));
    const bool ok = msg && GST_MESSAGE_TYPE(msg.get()) == GST_MESSAGE_EOS;
    const std::string why = ok || !msg ? "" : describe_gst_message(msg.get());
    pipeline_.reset();
    if (!ok) throw std::runtime_error("the encoder failed at the end of the video: " + why);
  }

 private:
  void check_bus() {
    GstMessagePtr msg(gst_bus_pop_filtered(bus_.get(), GST_MESSAGE_ERROR));
    if (msg) throw std::runtime_error("the encoder failed: " + describe_gst_message(msg.get()));
  }
  [[noreturn]] void fail(const std::string& what) {
    GstMessagePtr msg(gst_bus_pop_filtered(bus_.get(), GST_MESSAGE_ERROR));
    throw std::runtime_error(msg ? what + ": " + describe_gst_message(msg.get()) : what);
  }

  cv::Size size_;
  GstVideoInfo info_{};
  int64_t frames_ = 0;
  OwnedPipeline pipeline_;
  GstElementPtr appsrc_;
  GstBusPtr bus_;
};

}  // namespace

std::string gst_h264_unavailable_reason(const std::string& extension) {
  if (std::string why = gst_init_error(); !why.empty()) return why;
  const Muxer* mux = muxer_for(extension);
  if (!mux) return fmt::format("no GStreamer muxer is set up for '{}' files", extension);
  struct Needed {
    const char* element;
    const char* package;
  };
  const Needed needed[] = {{"appsrc", "gstreamer1.0-plugins-base"},
                           {"videoconvert", "gstreamer1.0-plugins-base"},
                           {"x264enc", "gstreamer1.0-plugins-ugly"},
                           {"h264parse", "gstreamer1.0-plugins-bad"},
                           {mux->element, mux->package},
                           {"filesink", "gstreamer1.0 core"}};
  for (const Needed& n : needed) {
    if (!gst_element_available(n.element))
      return fmt::format("the GStreamer element '{}' is not installed (package {})", n.element,
                         n.package);
  }
  return {};
}

std::unique_ptr<VideoEncoder> make_gst_h264_encoder(const std::filesystem::path& file,
                                                    cv::Size size, double fps) {
  return std::make_unique<GstH264Encoder>(file, size, fps);
}

}  // namespace yolo::predict
