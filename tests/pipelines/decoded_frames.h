// A video file decoded through a chain of elements to BGRx frames: what the pipeline tests
// compare pixel by pixel.
#pragma once

#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace yolo::testing {

// Every frame of `video` after `chain` (a gst-launch fragment between the decoder's BGRx output
// and the sink), as bytes.
inline std::vector<std::vector<uint8_t>> frames_through(const std::filesystem::path& video,
                                                        const std::string& chain = "identity") {
  const std::string desc = "filesrc location=" + video.string() +
                           " ! decodebin ! videoconvert ! video/x-raw,format=BGRx ! " + chain +
                           " ! appsink name=sink sync=false";
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(desc.c_str(), &error);
  EXPECT_EQ(error, nullptr) << (error ? error->message : "");
  if (error) {
    g_error_free(error);
    if (pipeline) gst_object_unref(pipeline);
    return {};
  }
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  std::vector<std::vector<uint8_t>> frames;
  while (GstSample* sample = gst_app_sink_pull_sample(GST_APP_SINK(sink))) {
    GstBuffer* buffer = gst_sample_get_buffer(sample);
    frames.emplace_back(gst_buffer_get_size(buffer));
    gst_buffer_extract(buffer, 0, frames.back().data(), frames.back().size());
    gst_sample_unref(sample);
  }
  gst_object_unref(sink);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return frames;
}

}  // namespace yolo::testing
