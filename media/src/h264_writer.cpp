#include "yolo/media/h264_writer.h"

#include <fmt/format.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "yolo/core/strings.h"
#include "yolo/media/gst_support.h"

namespace yolo::media {

struct H264Writer::VideoInfo {
  GstVideoInfo info{};
};

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

}  // namespace

std::string h264_writer_unavailable_reason(const std::string& extension) {
  const Muxer* mux = muxer_for(extension);
  if (!mux) return fmt::format("no GStreamer muxer is set up for '{}' files", extension);
  return missing_elements_reason({{"appsrc", "gstreamer1.0-plugins-base"},
                                  {"videoconvert", "gstreamer1.0-plugins-base"},
                                  {"x264enc", "gstreamer1.0-plugins-ugly"},
                                  {"h264parse", "gstreamer1.0-plugins-bad"},
                                  {mux->element, mux->package},
                                  {"filesink", "gstreamer1.0 (core elements)"}},
                                 "the H.264 video writer");
}

H264Writer::H264Writer(const std::filesystem::path& file, cv::Size size,
                       const H264WriterOptions& options)
    : size_(size), info_(std::make_unique<VideoInfo>()) {
  const std::string container =
      options.container.empty() ? file.extension().string() : options.container;
  if (const std::string why = h264_writer_unavailable_reason(container); !why.empty())
    throw std::runtime_error(why);
  if (size.width <= 0 || size.height <= 0 || !(options.fps > 0))
    throw std::invalid_argument(
        fmt::format("cannot write a {}x{} video at {} fps", size.width, size.height, options.fps));
  const Muxer* mux = muxer_for(container);
  const int gop = std::max(1, static_cast<int>(2 * options.fps));
  const std::string description = fmt::format(
      "appsrc name=frames format=time ! videoconvert ! video/x-raw,format=I420 ! "
      "x264enc{} speed-preset=ultrafast key-int-max={} ! h264parse ! {} ! filesink name=file",
      options.zero_latency ? " tune=zerolatency" : "", gop, mux->element);
  GError* raw = nullptr;
  GstElement* parsed = gst_parse_launch(description.c_str(), &raw);
  GErrorPtr error(raw);
  pipeline_ = OwnedPipeline(parsed);
  if (!parsed || error) {
    throw std::runtime_error(fmt::format("GStreamer cannot build the encoder '{}': {}", description,
                                         error ? error->message : "unknown"));
  }
  // The location is set as a property, not in the description: any path works, quotes included.
  GstElementPtr sink(gst_bin_get_by_name(GST_BIN(parsed), "file"));
  g_object_set(sink.get(), "location", file.c_str(), nullptr);
  appsrc_.reset(gst_bin_get_by_name(GST_BIN(parsed), "frames"));

  GstVideoInfo& info = info_->info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_BGR, static_cast<guint>(size.width),
                            static_cast<guint>(size.height));
  gst_util_double_to_fraction(options.fps, &info.fps_n, &info.fps_d);
  GstCapsPtr caps(gst_video_info_to_caps(&info));
  // block: a full queue (200 kB by default) makes write() wait for the encoder instead of
  // buffering the whole video in memory.
  g_object_set(appsrc_.get(), "caps", caps.get(), "block", TRUE, nullptr);
  bus_.reset(gst_element_get_bus(parsed));
  if (gst_element_set_state(parsed, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    fail(fmt::format("the encoder for '{}' refused to start", file.string()));
}

H264Writer::~H264Writer() = default;

void H264Writer::write(const cv::Mat& bgr) {
  if (bgr.size() != size_ || bgr.type() != CV_8UC3) {
    throw std::invalid_argument(fmt::format("video frame is {}x{} type {}, expected {}x{} BGR",
                                            bgr.cols, bgr.rows, bgr.type(), size_.width,
                                            size_.height));
  }
  if (!pipeline_) throw std::runtime_error("the video was already finished");
  check_bus();
  const GstVideoInfo& info = info_->info;
  const gsize bytes = GST_VIDEO_INFO_SIZE(&info);
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, bytes, nullptr);
  GstMapInfo map;
  gst_buffer_map(buffer, &map, GST_MAP_WRITE);
  // GStreamer's BGR rows are padded to 4 bytes; copy row by row.
  const auto stride = static_cast<size_t>(GST_VIDEO_INFO_PLANE_STRIDE(&info, 0));
  const size_t row = static_cast<size_t>(size_.width) * 3;
  for (int y = 0; y < size_.height; ++y)
    std::memcpy(map.data + static_cast<size_t>(y) * stride, bgr.ptr<uint8_t>(y), row);
  gst_buffer_unmap(buffer, &map);
  const GstClockTime frame = gst_util_uint64_scale_int(GST_SECOND, info.fps_d, info.fps_n);
  GST_BUFFER_PTS(buffer) = static_cast<GstClockTime>(frames_) * frame;
  GST_BUFFER_DURATION(buffer) = frame;
  ++frames_;
  // push_buffer takes the buffer, also when it fails.
  if (gst_app_src_push_buffer(GST_APP_SRC(appsrc_.get()), buffer) != GST_FLOW_OK)
    fail("the encoder stopped accepting frames");
}

void H264Writer::finish() {
  if (!pipeline_) return;
  gst_app_src_end_of_stream(GST_APP_SRC(appsrc_.get()));
  // The muxer writes its index at end of stream; wait for it (or for an error).
  GstMessagePtr msg(
      gst_bus_timed_pop_filtered(bus_.get(), GST_CLOCK_TIME_NONE,
                                 static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR)));
  const bool ok = msg && GST_MESSAGE_TYPE(msg.get()) == GST_MESSAGE_EOS;
  const std::string why = ok || !msg ? "" : describe_gst_message(msg.get());
  pipeline_.reset();
  if (!ok) throw std::runtime_error("the encoder failed at the end of the video: " + why);
}

void H264Writer::check_bus() {
  GstMessagePtr msg(gst_bus_pop_filtered(bus_.get(), GST_MESSAGE_ERROR));
  if (msg) throw std::runtime_error("the encoder failed: " + describe_gst_message(msg.get()));
}

void H264Writer::fail(const std::string& what) {
  GstMessagePtr msg(gst_bus_pop_filtered(bus_.get(), GST_MESSAGE_ERROR));
  throw std::runtime_error(msg ? what + ": " + describe_gst_message(msg.get()) : what);
}

}  // namespace yolo::media
