#include "yolo/media/frame_decoder.h"

#include <fmt/format.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

#include "yolo/media/frame_colours.h"
#include "yolo/media/gst_support.h"

namespace yolo::media {

struct FrameQueue {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::pair<GstSamplePtr, int64_t>> samples;  // (sample, frame index)
  int64_t decoded = 0;                                   // frames that reached the sink
  bool eos = false;                                      // the sink saw end of stream
  bool closing = false;  // the decoder is being destroyed: stop waiting
  int stride = 1;
  int64_t phase = 0;  // index % stride of the kept frames
  bool latest_only = false;
  size_t max_queued = 30;
};

namespace {

using Clock = std::chrono::steady_clock;
// How often the consumer looks at the bus while it waits for a frame.
constexpr auto kBusPollInterval = std::chrono::milliseconds(50);

// Runs in the streaming thread for every decoded frame.
GstFlowReturn on_new_sample(GstAppSink* sink, gpointer data) {
  auto* q = static_cast<FrameQueue*>(data);
  GstSamplePtr sample(gst_app_sink_pull_sample(sink));
  if (!sample) return GST_FLOW_FLUSHING;
  std::unique_lock<std::mutex> lock(q->mutex);
  const int64_t index = q->decoded++;
  if (index % q->stride != q->phase) return GST_FLOW_OK;
  if (q->latest_only) {
    q->samples.clear();
  } else {
    q->changed.wait(lock, [&] { return q->samples.size() < q->max_queued || q->closing; });
  }
  if (q->closing) return GST_FLOW_FLUSHING;
  q->samples.emplace_back(std::move(sample), index);
  q->changed.notify_all();
  return GST_FLOW_OK;
}

void on_eos(GstAppSink*, gpointer data) {
  auto* q = static_cast<FrameQueue*>(data);
  std::lock_guard<std::mutex> lock(q->mutex);
  q->eos = true;
  q->changed.notify_all();
}

// The whole pipeline: the shared source part, then frames into the appsink. Decoders' 4:2:0
// frames (I420, NV12) pass videoconvert untouched and are converted here with their caps'
// colorimetry (frame_colours.h: videoconvert's own conversion is several levels off); other
// formats (RGB sources, 4:2:2 webcams) become BGR in videoconvert. sync=false
// delivers frames as soon as they are decoded (no playback clock); max-buffers=1 keeps the
// sink's own queue short, since frames are queued in FrameQueue.
std::string decoder_description(const DecoderOptions& options) {
  std::string why;
  const std::optional<SourceKind> kind = classify_uri(options.source, &why);
  if (!kind) throw SourceError(fmt::format("\"{}\" cannot be opened: {}", options.source, why));
  try {
    return fmt::format(
        "{} ! videoconvert ! video/x-raw,format={{ I420, NV12, BGR }} ! appsink name=frames "
        "sync=false "
        "max-buffers=1",
        source_description(*kind, options.source, options.source_options));
  } catch (const std::invalid_argument& e) {
    throw SourceError(e.what());
  }
}

// Every element the description can use, so that a missing plugin is named with its package
// instead of gst_parse_launch's "no element \"x\"".
std::string missing_decoder_elements(const std::string& description) {
  static const std::vector<NeededElement> kElements = {
      {"rtspsrc", "gstreamer1.0-plugins-good"},   {"filesrc", "gstreamer1.0 (core elements)"},
      {"v4l2src", "gstreamer1.0-plugins-good"},   {"souphttpsrc", "gstreamer1.0-plugins-good"},
      {"decodebin", "gstreamer1.0-plugins-base"}, {"videoconvert", "gstreamer1.0-plugins-base"},
      {"rtmpsrc", "gstreamer1.0-plugins-bad"},    {"tcpclientsrc", "gstreamer1.0-plugins-base"},
      {"appsink", "gstreamer1.0-plugins-base"}};
  std::vector<NeededElement> used;
  for (const NeededElement& e : kElements) {
    if (description.find(std::string(e.factory) + " ") != std::string::npos) used.push_back(e);
  }
  return missing_elements_reason(used, "the video decoder");
}

cv::Mat sample_to_bgr(GstSample* sample) {
  GstVideoInfo info;
  GstCaps* caps = gst_sample_get_caps(sample);
  GstBuffer* buffer = gst_sample_get_buffer(sample);
  if (!caps || !buffer || !gst_video_info_from_caps(&info, caps))
    throw SourceError("the decoder delivered a frame without a usable format");
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ))
    throw SourceError("a decoded frame could not be mapped into memory");
  const int width = GST_VIDEO_FRAME_WIDTH(&frame), height = GST_VIDEO_FRAME_HEIGHT(&frame);
  cv::Mat bgr(height, width, CV_8UC3);
  if (GST_VIDEO_FRAME_FORMAT(&frame) == GST_VIDEO_FORMAT_BGR) {
    cv::Mat(height, width, CV_8UC3, GST_VIDEO_FRAME_PLANE_DATA(&frame, 0),
            static_cast<size_t>(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0)))
        .copyTo(bgr);
  } else {
    yuv_frame_to_bgr(frame, frame_colours(caps), bgr);
  }
  gst_video_frame_unmap(&frame);
  return bgr;
}

}  // namespace

FrameDecoder::FrameDecoder(const DecoderOptions& options)
    : options_(options), queue_(std::make_unique<FrameQueue>()) {
  if (const std::string why = gst_init_error(); !why.empty()) throw SourceError(why);
  queue_->stride = std::max(1, options.vid_stride);
  queue_->phase = options.keep_last_of_stride ? queue_->stride - 1 : 0;
  queue_->latest_only = options.latest_only;
  queue_->max_queued = std::max<size_t>(1, options.max_queued);

  description_ = decoder_description(options);
  if (const std::string why = missing_decoder_elements(description_); !why.empty())
    throw SourceError(why);
  GError* raw = nullptr;
  GstElement* parsed =
      gst_parse_launch_full(description_.c_str(), nullptr, GST_PARSE_FLAG_FATAL_ERRORS, &raw);
  GErrorPtr error(raw);
  pipeline_ = OwnedPipeline(parsed);
  if (!parsed || error) {
    throw SourceError(fmt::format("GStreamer cannot build the decoder '{}': {}", description_,
                                  error ? error->message : "unknown reason"));
  }
  GstElementPtr sink(gst_bin_get_by_name(GST_BIN(parsed), "frames"));
  repair_container_range(parsed, options.source);

  GstAppSinkCallbacks callbacks{};
  callbacks.eos = on_eos;
  callbacks.new_sample = on_new_sample;
  gst_app_sink_set_callbacks(GST_APP_SINK(sink.get()), &callbacks, queue_.get(), nullptr);

  bus_.reset(gst_element_get_bus(pipeline_.get()));
  if (gst_element_set_state(pipeline_.get(), GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    poll_bus();
    throw SourceError(error_.empty() ? "the pipeline refused to start" : error_);
  }
}

FrameDecoder::~FrameDecoder() {
  {
    // Release a streaming thread waiting for room in the queue before stopping the pipeline,
    // which waits for that thread.
    std::lock_guard<std::mutex> lock(queue_->mutex);
    queue_->closing = true;
    queue_->changed.notify_all();
  }
  pipeline_.reset();
}

void FrameDecoder::poll_bus() {
  const auto types = static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  while (GstMessagePtr msg{gst_bus_pop_filtered(bus_.get(), types)}) {
    if (GST_MESSAGE_TYPE(msg.get()) == GST_MESSAGE_ERROR && error_.empty()) {
      error_ = describe_gst_message(msg.get());
    } else if (GST_MESSAGE_TYPE(msg.get()) == GST_MESSAGE_EOS) {
      std::lock_guard<std::mutex> lock(queue_->mutex);
      queue_->eos = true;
    }
  }
}

void FrameDecoder::learn_stream_facts(GstSample* sample) {
  GstVideoInfo info;
  GstCaps* caps = gst_sample_get_caps(sample);
  if (caps && gst_video_info_from_caps(&info, caps) && GST_VIDEO_INFO_FPS_N(&info) > 0 &&
      GST_VIDEO_INFO_FPS_D(&info) > 0)
    fps_ = static_cast<double>(GST_VIDEO_INFO_FPS_N(&info)) / GST_VIDEO_INFO_FPS_D(&info);
  gint64 duration = -1;
  if (fps_ > 0 && gst_element_query_duration(pipeline_.get(), GST_FORMAT_TIME, &duration) &&
      duration > 0)
    frame_count_ = std::llround(static_cast<double>(duration) * 1e-9 * fps_);
}

std::optional<DecodedFrame> FrameDecoder::next() {
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(options_.timeout_s));
  while (true) {
    GstSamplePtr sample;
    int64_t index = 0;
    bool eos = false;
    {
      std::unique_lock<std::mutex> lock(queue_->mutex);
      queue_->changed.wait_for(lock, kBusPollInterval,
                               [&] { return !queue_->samples.empty() || queue_->eos; });
      if (!queue_->samples.empty()) {
        sample = std::move(queue_->samples.front().first);
        index = queue_->samples.front().second;
        queue_->samples.pop_front();
        queue_->changed.notify_all();  // room for the streaming thread
      }
      eos = queue_->eos;
    }
    if (sample) {
      if (!first_frame_seen_) {
        learn_stream_facts(sample.get());
        first_frame_seen_ = true;
      }
      DecodedFrame f;
      f.image = sample_to_bgr(sample.get());
      f.index = index;
      const GstClockTime pts = GST_BUFFER_PTS(gst_sample_get_buffer(sample.get()));
      f.pts_ns = GST_CLOCK_TIME_IS_VALID(pts) ? static_cast<int64_t>(pts) : -1;
      return f;
    }
    if (eos) return std::nullopt;
    poll_bus();
    if (!error_.empty()) throw SourceError(error_);
    if (Clock::now() > deadline) {
      throw SourceError(fmt::format("no {}frame within {:g} s", first_frame_seen_ ? "new " : "",
                                    options_.timeout_s));
    }
  }
}

}  // namespace yolo::media
