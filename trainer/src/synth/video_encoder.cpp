#include "video_encoder.h"

#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <gst/gst.h>
#include <opencv2/videoio/registry.hpp>

namespace yolo::synth {
namespace {

struct Element {
  const char* name;
  const char* package;
};

// Every element the pipeline below uses, with the Debian package that ships it.
constexpr Element kPipelineElements[] = {
    {"appsrc", "gstreamer1.0-plugins-base"},  {"videoconvert", "gstreamer1.0-plugins-base"},
    {"x264enc", "gstreamer1.0-plugins-ugly"}, {"h264parse", "gstreamer1.0-plugins-bad"},
    {"mp4mux", "gstreamer1.0-plugins-good"},  {"filesink", "gstreamer1.0 (core elements)"},
};

std::string pipeline_for(const std::filesystem::path& file, int fps) {
  const std::string location = file.string();
  if (location.find_first_of("\"\\") != std::string::npos) {
    throw std::invalid_argument(fmt::format(
        "synth: video path '{}' contains a quote or backslash, which a GStreamer pipeline "
        "description cannot carry: choose another dir",
        location));
  }
  // I420 explicitly: from BGR, videoconvert would otherwise pick 4:4:4 and x264 would write the
  // High 4:4:4 profile, which most decoders (browsers, hardware) refuse. Key frame every 2 s so
  // players can seek.
  return fmt::format(
      "appsrc ! videoconvert ! video/x-raw,format=I420 ! "
      "x264enc tune=zerolatency speed-preset=ultrafast key-int-max={} ! h264parse ! "
      "mp4mux ! filesink location=\"{}\"",
      2 * fps, location);
}

}  // namespace

std::string h264_encoder_unavailable_reason() {
  if (!cv::videoio_registry::hasBackend(cv::CAP_GSTREAMER)) {
    return "OpenCV was built without its GStreamer video backend, which the synthetic video "
           "needs: install an OpenCV with GStreamer support (Debian's libopencv-videoio406 has it)";
  }
  GError* error = nullptr;
  if (!gst_init_check(nullptr, nullptr, &error)) {
    std::string why = fmt::format("GStreamer cannot start: {}", error ? error->message : "unknown");
    if (error) g_error_free(error);
    return why;
  }
  std::vector<std::string> missing;
  for (const auto& e : kPipelineElements) {
    GstElementFactory* factory = gst_element_factory_find(e.name);
    if (factory) {
      gst_object_unref(factory);
    } else {
      missing.push_back(fmt::format("'{}' (package {})", e.name, e.package));
    }
  }
  if (missing.empty()) return {};
  return fmt::format("the GStreamer element{} {} {} not installed; the synthetic video needs it",
                     missing.size() > 1 ? "s" : "", fmt::join(missing, ", "),
                     missing.size() > 1 ? "are" : "is");
}

H264Mp4Writer::H264Mp4Writer(const std::filesystem::path& file, cv::Size frame_size, int fps)
    : size_(frame_size) {
  if (const std::string why = h264_encoder_unavailable_reason(); !why.empty()) {
    throw std::runtime_error("synth: cannot encode the video: " + why);
  }
  writer_.open(pipeline_for(file, fps), cv::CAP_GSTREAMER, 0, static_cast<double>(fps), size_,
               true);
  if (!writer_.isOpened()) {
    throw std::runtime_error(fmt::format(
        "synth: GStreamer could not start the H.264 encoder for '{}' ({}x{} at {} fps): check "
        "that the folder is writable and run with GST_DEBUG=2 for details",
        file.string(), size_.width, size_.height, fps));
  }
}

H264Mp4Writer::~H264Mp4Writer() {
  // Unfinished files are removed by the caller; releasing here only stops the pipeline.
  if (writer_.isOpened()) writer_.release();
}

void H264Mp4Writer::write(const cv::Mat& bgr) {
  if (bgr.size() != size_ || bgr.type() != CV_8UC3) {
    throw std::invalid_argument(
        fmt::format("synth: video frame is {}x{} type {}, expected {}x{} BGR", bgr.cols, bgr.rows,
                    bgr.type(), size_.width, size_.height));
  }
  writer_.write(bgr);
}

void H264Mp4Writer::close() {
  if (writer_.isOpened()) writer_.release();
}

}  // namespace yolo::synth
