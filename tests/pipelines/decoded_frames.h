// A video file decoded through a chain of elements to an appsink: the frames' bytes (what the
// pipeline tests compare pixel by pixel) or anything else read off each buffer.
#pragma once

#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace yolo::testing {

// Calls `on_buffer` with every buffer `video` yields after `chain` (a gst-launch fragment after
// the decoder's converter), in order. A pipeline that does not parse is a test failure.
inline void each_buffer_through(const std::filesystem::path& video, const std::string& chain,
                                const std::function<void(GstBuffer*)>& on_buffer) {
  const std::string desc = "filesrc location=" + video.string() + " ! decodebin ! videoconvert ! " +
                           chain + " ! appsink name=sink sync=false";
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(desc.c_str(), &error);
  EXPECT_EQ(error, nullptr) << (error ? error->message : "");
  if (error) {
    g_error_free(error);
    if (pipeline) gst_object_unref(pipeline);
    return;
  }
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  while (GstSample* sample = gst_app_sink_pull_sample(GST_APP_SINK(sink))) {
    on_buffer(gst_sample_get_buffer(sample));
    gst_sample_unref(sample);
  }
  gst_object_unref(sink);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

// Every frame of `video` after `chain` (a gst-launch fragment between the decoder's BGRx output
// and the sink), as bytes.
inline std::vector<std::vector<uint8_t>> frames_through(const std::filesystem::path& video,
                                                        const std::string& chain = "identity") {
  std::vector<std::vector<uint8_t>> frames;
  each_buffer_through(video, "video/x-raw,format=BGRx ! " + chain, [&](GstBuffer* buffer) {
    frames.emplace_back(gst_buffer_get_size(buffer));
    gst_buffer_extract(buffer, 0, frames.back().data(), frames.back().size());
  });
  return frames;
}

}  // namespace yolo::testing
