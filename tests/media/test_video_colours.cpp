// Decoded colours against known values. Flat patches are written straight as I420 whose Y, U and
// V are the exact conversion of the patches' RGB under a stated colorimetry (no videoconvert on
// the encoding side), encoded with that colorimetry flagged (H.264 lossless: the stored YUV is
// exactly that; MPEG-4 at a high rate), then decoded by FrameDecoder (what predict and track
// read videos with) and compared with the exact inverse: within 1 level for every flagged
// combination of codec, container, matrix and range. Unflagged streams follow FFmpeg's rule
// (BT.601, limited range, at every size), which is what Ultralytics' OpenCV decode gives.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "test_files.h"
#include "yolo/media/frame_colours.h"
#include "yolo/media/frame_decoder.h"
#include "yolo/media/gst_handles.h"
#include "yolo/media/gst_support.h"

namespace fs = std::filesystem;

namespace {

using Rgb = std::array<int, 3>;
// Primaries, greys, a skin tone, a dark blue, white and a near-black.
const std::vector<Rgb> kPatches = {{255, 0, 0},     {0, 255, 0},  {0, 0, 255},     {128, 128, 128},
                                   {230, 180, 140}, {40, 60, 90}, {255, 255, 255}, {16, 16, 16}};

struct Colorimetry {
  double kr, kb;
  bool full;
};
constexpr Colorimetry kBT601{0.299, 0.114, false}, kBT709{0.2126, 0.0722, false},
    kBT601Full{0.299, 0.114, true}, kBT709Full{0.2126, 0.0722, true};

int to_level(double x) {
  return std::clamp(static_cast<int>(std::lround(x)), 0, 255);
}

// The exact Y'CbCr of an RGB patch, rounded to 8 bits.
std::array<int, 3> rgb_to_yuv(const Rgb& rgb, const Colorimetry& c) {
  const double r = rgb[0] / 255.0, g = rgb[1] / 255.0, b = rgb[2] / 255.0;
  const double y = c.kr * r + (1 - c.kr - c.kb) * g + c.kb * b;
  const double u = (b - y) / (2 * (1 - c.kb)), v = (r - y) / (2 * (1 - c.kr));
  if (c.full) return {to_level(255 * y), to_level(128 + 255 * u), to_level(128 + 255 * v)};
  return {to_level(16 + 219 * y), to_level(128 + 224 * u), to_level(128 + 224 * v)};
}

// The exact inverse, unrounded: what a decoder honouring the colorimetry should give.
std::array<double, 3> yuv_to_rgb(const std::array<int, 3>& yuv, const Colorimetry& c) {
  const double y = c.full ? yuv[0] / 255.0 : (yuv[0] - 16) / 219.0;
  const double cs = c.full ? 255.0 : 224.0;
  const double u = (yuv[1] - 128) / cs, v = (yuv[2] - 128) / cs;
  const double r = y + 2 * (1 - c.kr) * v, b = y + 2 * (1 - c.kb) * u;
  const double g = (y - c.kr * r - c.kb * b) / (1 - c.kr - c.kb);
  auto level = [](double x) { return std::clamp(255 * x, 0.0, 255.0); };
  return {level(r), level(g), level(b)};
}

// Patch i fills cell (i % 4, i / 4) of a 4 x 2 grid; cells are multiples of 16 pixels so that
// no block of any codec straddles two patches.
cv::Rect cell(int i, cv::Size frame) {
  const int w = frame.width / 4, h = frame.height / 2;
  return {(i % 4) * w, (i / 4) * h, w, h};
}

std::vector<uint8_t> i420_frame(cv::Size size, const Colorimetry& c) {
  const int w = size.width, h = size.height;
  std::vector<uint8_t> frame(static_cast<size_t>(w * h * 3 / 2));
  uint8_t* y_plane = frame.data();
  uint8_t* u_plane = y_plane + w * h;
  uint8_t* v_plane = u_plane + (w / 2) * (h / 2);
  for (size_t i = 0; i < kPatches.size(); ++i) {
    const auto yuv = rgb_to_yuv(kPatches[i], c);
    const cv::Rect r = cell(static_cast<int>(i), size);
    for (int row = r.y; row < r.y + r.height; ++row) {
      std::fill_n(y_plane + row * w + r.x, r.width, yuv[0]);
      if (row % 2 == 0) {
        std::fill_n(u_plane + (row / 2) * (w / 2) + r.x / 2, r.width / 2, yuv[1]);
        std::fill_n(v_plane + (row / 2) * (w / 2) + r.x / 2, r.width / 2, yuv[2]);
      }
    }
  }
  return frame;
}

// Runs a gst-launch description to its end; empty when it finished, else the error.
std::string run_to_end(const std::string& description) {
  GError* raw = nullptr;
  yolo::media::OwnedPipeline pipeline(gst_parse_launch(description.c_str(), &raw));
  yolo::media::GErrorPtr error(raw);
  if (error) return error->message;
  yolo::media::GstBusPtr bus(gst_element_get_bus(pipeline.get()));
  gst_element_set_state(pipeline.get(), GST_STATE_PLAYING);
  yolo::media::GstMessagePtr msg(
      gst_bus_timed_pop_filtered(bus.get(), 60 * GST_SECOND,
                                 static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR)));
  if (!msg) return "no end within 60 s";
  return GST_MESSAGE_TYPE(msg.get()) == GST_MESSAGE_EOS
             ? ""
             : yolo::media::describe_gst_message(msg.get());
}

struct Case {
  const char* name;
  const char* encoder;      // gst-launch encoder and muxer
  const char* extension;    // the container
  const char* colorimetry;  // what the encoder is told ("" for none)
  Colorimetry stored;       // how the stored YUV was made
  Colorimetry expected;     // how a correct decoder converts it back
  cv::Size size;
  // What the muxer is told instead, where the container is to disagree with the stream ("" for
  // the encoder's): the stream's word wins, as FFmpeg decodes.
  const char* container = "";
};

constexpr const char* kH264 = "x264enc pass=quant quantizer=0 speed-preset=ultrafast";
constexpr const char* kMpeg4 = "avenc_mpeg4 bitrate=30000000";
// Lossless H.265, so that the stored YUV comes back exactly; parsed into what MP4 holds (hvc1).
constexpr const char* kH265 = "x265enc option-string=lossless=1 speed-preset=ultrafast ! h265parse";
const cv::Size kSd(256, 128), kHd(1280, 720);

// The largest error over the patch centres, and a line per patch that is off.
double decode_and_compare(const fs::path& video, const Case& c, std::string& report) {
  yolo::media::DecoderOptions o;
  o.source = video.string();
  yolo::media::FrameDecoder decoder(o);
  std::optional<yolo::media::DecodedFrame> frame = decoder.next();
  if (!frame) {
    report = "no frame decoded";
    return 255;
  }
  double worst = 0;
  for (size_t i = 0; i < kPatches.size(); ++i) {
    const cv::Rect r = cell(static_cast<int>(i), c.size);
    const cv::Vec3b bgr = frame->image.at<cv::Vec3b>(r.y + r.height / 2, r.x + r.width / 2);
    const auto exact = yuv_to_rgb(rgb_to_yuv(kPatches[i], c.stored), c.expected);
    double off = 0;
    for (int ch = 0; ch < 3; ++ch) off = std::max(off, std::abs(bgr[2 - ch] - exact[ch]));
    if (off > 1)
      report += "  patch " + std::to_string(i) + ": got RGB " + std::to_string(bgr[2]) + "," +
                std::to_string(bgr[1]) + "," + std::to_string(bgr[0]) + ", exact " +
                std::to_string(exact[0]) + "," + std::to_string(exact[1]) + "," +
                std::to_string(exact[2]) + "\n";
    worst = std::max(worst, off);
  }
  return worst;
}

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class VideoColours : public ::testing::TestWithParam<Case> {};

TEST_P(VideoColours, DecodeWithinOneLevelOfTheExactColours) {
  const Case& c = GetParam();
  ASSERT_EQ(yolo::media::gst_init_error(), "");
  const std::string encoder_factory =
      std::string(c.encoder).substr(0, std::string(c.encoder).find(' '));
  if (!yolo::media::gst_element_available(encoder_factory.c_str()))
    GTEST_SKIP() << encoder_factory << " is not installed (gstreamer1.0-plugins-ugly / -libav)";
  yolo::testing::TempDir tmp(std::string("colours_") + c.name);
  const fs::path raw = tmp.path / "patches.i420";
  {
    const std::vector<uint8_t> frame = i420_frame(c.size, c.stored);
    std::ofstream out(raw, std::ios::binary);
    for (int i = 0; i < 3; ++i)
      out.write(reinterpret_cast<const char*>(frame.data()),
                static_cast<std::streamsize>(frame.size()));
  }
  const std::string ext = c.extension;
  // The container told another colorimetry than the stream: the parsed stream's caps rewritten
  // before the muxer, which writes them into its colour box.
  const bool h265 = std::string(c.encoder).rfind("x265enc", 0) == 0;
  const std::string retag = *c.container
                                ? std::string(h265 ? "" : "h264parse ! ") + "capssetter caps=\"" +
                                      (h265 ? "video/x-h265" : "video/x-h264") +
                                      ",colorimetry=(string)" + c.container + "\" ! "
                                : std::string();
  const char* mux = ext == "mp4" ? "mp4mux" : ext == "mkv" ? "matroskamux" : "avimux";
  const fs::path video = tmp.path / (std::string(c.name) + "." + ext);
  const std::string colorimetry =
      *c.colorimetry ? std::string(" colorimetry=") + c.colorimetry : std::string();
  const std::string encode = "filesrc location=" + raw.string() +
                             " ! rawvideoparse format=i420 width=" + std::to_string(c.size.width) +
                             " height=" + std::to_string(c.size.height) + colorimetry +
                             " framerate=25/1 ! " + c.encoder + " ! " + retag + mux +
                             " ! filesink location=" + video.string();
  ASSERT_EQ(run_to_end(encode), "") << encode;
  std::string report;
  EXPECT_LE(decode_and_compare(video, c, report), 1.0) << c.name << "\n" << report;
}

INSTANTIATE_TEST_SUITE_P(
    Flagged, VideoColours,
    ::testing::Values(
        Case{"h264_mp4_bt601", kH264, "mp4", "bt601", kBT601, kBT601, kSd},
        Case{"h264_mp4_bt709", kH264, "mp4", "bt709", kBT709, kBT709, kSd},
        Case{"h264_mp4_bt601_full", kH264, "mp4", "1:4:7:1", kBT601Full, kBT601Full, kSd},
        Case{"h264_mp4_bt709_full", kH264, "mp4", "1:3:5:1", kBT709Full, kBT709Full, kSd},
        Case{"h264_mkv_bt709", kH264, "mkv", "bt709", kBT709, kBT709, kSd},
        Case{"h264_mkv_bt601_full", kH264, "mkv", "1:4:7:1", kBT601Full, kBT601Full, kSd},
        Case{"mpeg4_mp4_bt601", kMpeg4, "mp4", "bt601", kBT601, kBT601, kSd},
        Case{"mpeg4_mp4_bt709", kMpeg4, "mp4", "bt709", kBT709, kBT709, kSd},
        Case{"mpeg4_mp4_bt601_full", kMpeg4, "mp4", "1:4:7:1", kBT601Full, kBT601Full, kSd},
        Case{"mpeg4_mkv_bt709_full", kMpeg4, "mkv", "1:3:5:1", kBT709Full, kBT709Full, kSd},
        // The MP4 colour box and the H.264 stream disagree: the stream's range counts (#68).
        Case{"h264_mp4_box_full_stream_limited", kH264, "mp4", "bt601", kBT601, kBT601, kSd,
             "1:4:7:1"},
        Case{"h264_mp4_box_limited_stream_full", kH264, "mp4", "1:4:7:1", kBT601Full, kBT601Full,
             kSd, "bt601"},
        Case{"h265_mp4_bt709", kH265, "mp4", "bt709", kBT709, kBT709, kSd},
        Case{"h265_mp4_box_full_stream_limited", kH265, "mp4", "bt709", kBT709, kBT709, kSd,
             "1:3:5:1"},
        Case{"h265_mp4_box_limited_stream_full", kH265, "mp4", "1:3:5:1", kBT709Full, kBT709Full,
             kSd, "bt709"}),
    [](const ::testing::TestParamInfo<Case>& p) { return std::string(p.param.name); });

// MPEG-4 part 2 in AVI carries no colour matrix: decoded as BT.601 limited range at SD and HD
// sizes alike (FFmpeg's rule; GStreamer's own default would be BT.709 at 720 lines).
INSTANTIATE_TEST_SUITE_P(
    Unflagged, VideoColours,
    ::testing::Values(Case{"mpeg4_avi_sd", kMpeg4, "avi", "", kBT601, kBT601, kSd},
                      Case{"mpeg4_avi_hd_bt601", kMpeg4, "avi", "", kBT601, kBT601, kHd}),
    [](const ::testing::TestParamInfo<Case>& p) { return std::string(p.param.name); });

// What the caps say is taken; what they do not say follows FFmpeg (BT.601, limited) at every
// size, where GStreamer's own default is BT.709 above 576 lines.
TEST(FrameColours, CapsSayOrFFmpegsDefaultFills) {
  ASSERT_EQ(yolo::media::gst_init_error(), "");
  auto colours = [](const char* caps_text) {
    yolo::media::GstCapsPtr caps(gst_caps_from_string(caps_text));
    return yolo::media::frame_colours(caps.get());
  };
  using yolo::YuvMatrix;
  using yolo::YuvRange;
  const auto hd = colours("video/x-raw,format=I420,width=1920,height=1080");
  EXPECT_EQ(hd.matrix, YuvMatrix::kBT601);
  EXPECT_EQ(hd.range, YuvRange::kLimited);
  EXPECT_FALSE(hd.matrix_from_stream);
  EXPECT_FALSE(hd.range_from_stream);
  const auto bt709 = colours("video/x-raw,format=NV12,width=640,height=480,colorimetry=bt709");
  EXPECT_EQ(bt709.matrix, YuvMatrix::kBT709);
  EXPECT_EQ(bt709.range, YuvRange::kLimited);
  EXPECT_TRUE(bt709.matrix_from_stream && bt709.range_from_stream);
  const auto full = colours("video/x-raw,format=I420,width=64,height=64,colorimetry=1:4:7:1");
  EXPECT_EQ(full.matrix, YuvMatrix::kBT601);
  EXPECT_EQ(full.range, YuvRange::kFull);
  // A range left unknown (what repair_container_range leaves when the bitstream is silent).
  const auto no_range = colours("video/x-raw,format=I420,width=64,height=64,colorimetry=0:3:5:1");
  EXPECT_EQ(no_range.matrix, YuvMatrix::kBT709);
  EXPECT_EQ(no_range.range, YuvRange::kLimited);
  EXPECT_FALSE(no_range.range_from_stream);
  EXPECT_EQ(colours("video/x-raw,colorimetry=bt2020").matrix, YuvMatrix::kBT709);
}

}  // namespace
