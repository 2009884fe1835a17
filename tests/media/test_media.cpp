// The media library: source descriptions per uri kind, the H.264 writer and the frame decoder
// together (what is written decodes back: frame count, rate, size, content, stride), a live RTSP
// camera through the decoder, and the errors a person sees for sources that cannot be read.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "test_files.h"
#include "yolo/media/frame_decoder.h"
#include "yolo/media/gst_support.h"
#include "yolo/media/h264_writer.h"
#include "yolo/media/media_source.h"

#ifdef YOLO_HAVE_RTSP_SERVER
#include "rtsp_test_server.h"
#endif

namespace fs = std::filesystem;
using yolo::media::SourceKind;

namespace {

std::string describe(const std::string& uri, const yolo::media::SourceOptions& o = {}) {
  return yolo::media::source_description(*yolo::media::classify_uri(uri), uri, o);
}

// Frame i is a flat grey of level 20 + 20 * i, so a decoded frame tells which one it was even
// after lossy coding.
cv::Mat grey_frame(int i, cv::Size size) {
  return cv::Mat(size, CV_8UC3, cv::Scalar::all(20 + 20 * i));
}
int frame_number(const cv::Mat& bgr) {
  return static_cast<int>(std::lround((cv::mean(bgr)[0] - 20) / 20));
}

// Writes `frames` grey frames of 64x48 at 10 fps; skips the test when the encoder is missing.
fs::path write_video(const fs::path& file, int frames) {
  yolo::media::H264Writer w(file, cv::Size(64, 48), {10, false, {}});
  for (int i = 0; i < frames; ++i) w.write(grey_frame(i, cv::Size(64, 48)));
  w.finish();
  return file;
}

std::string error_of(const yolo::media::DecoderOptions& o) {
  try {
    yolo::media::FrameDecoder d(o);
    while (d.next()) {
    }
  } catch (const yolo::media::SourceError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// rtsp: TCP and a bounded jitterbuffer by default; auto transport drops protocols=.
TEST(MediaSource, Rtsp) {
  EXPECT_EQ(describe("rtsp://10.0.0.5:554/live?ch=1"),
            "rtspsrc location=\"rtsp://10.0.0.5:554/live?ch=1\" protocols=tcp latency=200 ! "
            "decodebin");
  yolo::media::SourceOptions o;
  o.rtsp_tcp = false;
  o.rtsp_latency = std::chrono::milliseconds(50);
  EXPECT_EQ(describe("rtsp://cam/x", o),
            "rtspsrc location=\"rtsp://cam/x\" latency=50 ! decodebin");
}

// Other kinds, file:// decoding, and quoting of odd characters.
TEST(MediaSource, OtherKindsAndQuoting) {
  EXPECT_EQ(describe("/dev/video2"), "v4l2src device=\"/dev/video2\" ! decodebin");
  EXPECT_EQ(describe("http://cam/video.mjpg"),
            "souphttpsrc location=\"http://cam/video.mjpg\" ! decodebin");
  EXPECT_EQ(describe("file:///srv/my%20video.mp4"),
            "filesrc location=\"/srv/my video.mp4\" ! decodebin");
  EXPECT_EQ(describe("clips/a \"b\" ! c.mp4"),
            "filesrc location=\"clips/a \\\"b\\\" ! c.mp4\" ! decodebin");
  EXPECT_EQ(describe("rtmp://srv/live/cam"),
            "rtmpsrc location=\"rtmp://srv/live/cam\" ! decodebin");
  EXPECT_EQ(describe("tcp://10.0.0.7:5000"),
            "tcpclientsrc host=\"10.0.0.7\" port=5000 ! decodebin");
}

TEST(MediaSource, UnsupportedUrisSayWhatToUse) {
  std::string why;
  EXPECT_FALSE(yolo::media::classify_uri("ftp://host/live", &why));
  EXPECT_NE(why.find("unsupported scheme \"ftp\""), std::string::npos) << why;
  EXPECT_FALSE(yolo::media::classify_uri("tcp://camera.local", &why));
  EXPECT_NE(why.find("needs a port"), std::string::npos) << why;
  EXPECT_FALSE(yolo::media::classify_uri("/dev/sda", &why));
  EXPECT_NE(why.find("/dev/videoN"), std::string::npos) << why;
  EXPECT_FALSE(yolo::media::classify_uri("rtsp:///nohost", &why));
  EXPECT_NE(why.find("no host"), std::string::npos) << why;
}

// What the writer writes, the decoder reads back: every frame in order, its rate, its size, its
// timestamps, and the container's frame count.
TEST(MediaVideo, WrittenFramesDecodeBack) {
  if (const std::string why = yolo::media::h264_writer_unavailable_reason("mp4"); !why.empty())
    GTEST_SKIP() << why;
  yolo::testing::TempDir tmp("media_roundtrip");
  const fs::path video = write_video(tmp.path / "grey.mp4", 12);
  yolo::media::DecoderOptions o;
  o.source = video.string();
  yolo::media::FrameDecoder d(o);
  EXPECT_EQ(d.description().rfind(describe(video.string()), 0), 0u) << d.description();
  std::vector<int> seen;
  while (auto f = d.next()) {
    ASSERT_EQ(f->image.size(), cv::Size(64, 48));
    ASSERT_EQ(f->image.type(), CV_8UC3);
    EXPECT_EQ(f->index, static_cast<int64_t>(seen.size()));
    EXPECT_EQ(f->pts_ns, f->index * 100'000'000) << f->index;
    seen.push_back(frame_number(f->image));
  }
  ASSERT_EQ(seen.size(), 12u);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(seen[i], i);
  EXPECT_DOUBLE_EQ(d.fps(), 10.0);
  EXPECT_EQ(d.frame_count(), 12);
}

// vid_stride keeps one frame in N: the last of each group for files (Ultralytics'
// LoadImagesAndVideos), the first for streams (LoadStreams).
TEST(MediaVideo, StrideKeepsTheRightFrames) {
  if (const std::string why = yolo::media::h264_writer_unavailable_reason("mkv"); !why.empty())
    GTEST_SKIP() << why;
  yolo::testing::TempDir tmp("media_stride");
  const fs::path video = write_video(tmp.path / "grey.mkv", 10);
  for (const bool last : {true, false}) {
    yolo::media::DecoderOptions o;
    o.source = "file://" + video.string();
    o.vid_stride = 3;
    o.keep_last_of_stride = last;
    yolo::media::FrameDecoder d(o);
    std::vector<int64_t> kept;
    while (auto f = d.next()) {
      EXPECT_EQ(frame_number(f->image), f->index);
      kept.push_back(f->index);
    }
    EXPECT_EQ(kept, last ? std::vector<int64_t>({2, 5, 8}) : std::vector<int64_t>({0, 3, 6, 9}));
  }
}

// The writer refuses what it cannot write, naming it.
TEST(MediaVideo, WriterRefusesBadFramesAndContainers) {
  if (const std::string why = yolo::media::h264_writer_unavailable_reason("mp4"); !why.empty())
    GTEST_SKIP() << why;
  yolo::testing::TempDir tmp("media_writer_errors");
  EXPECT_NE(yolo::media::h264_writer_unavailable_reason(".flv").find("no GStreamer muxer"),
            std::string::npos);
  EXPECT_THROW(yolo::media::H264Writer(tmp.path / "x.flv", cv::Size(64, 48), {}),
               std::runtime_error);
  yolo::media::H264Writer w(tmp.path / "x.tmp", cv::Size(64, 48), {10, true, "mp4"});
  EXPECT_THROW(w.write(cv::Mat(48, 32, CV_8UC3)), std::invalid_argument);
  EXPECT_THROW(w.write(cv::Mat(48, 64, CV_8UC1)), std::invalid_argument);
  w.write(grey_frame(1, cv::Size(64, 48)));
  w.finish();
  EXPECT_GT(fs::file_size(tmp.path / "x.tmp"), 0u);
}

// Sources that cannot be read end in a SourceError that says why, never a crash or a hang.
TEST(MediaVideo, UnreadableSourcesSayWhy) {
  yolo::testing::TempDir tmp("media_errors");
  yolo::media::DecoderOptions o;
  o.timeout_s = 10;
  o.source = (tmp.path / "missing.mp4").string();
  std::string why = error_of(o);
  EXPECT_NE(why.find("not found"), std::string::npos) << why;
  o.source = "ftp://host/live";
  why = error_of(o);
  EXPECT_NE(why.find("unsupported scheme"), std::string::npos) << why;
  std::ofstream(tmp.path / "notes.mp4") << "not a video at all\n";
  o.source = (tmp.path / "notes.mp4").string();
  why = error_of(o);
  EXPECT_FALSE(why.empty()) << "a text file decoded as a video";
}

// A video cut in half (a download that stopped): never the whole video's frames. The decoder
// either ends early with what the half holds or stops with an error that says why (its callers
// put the file's name in front: predict's "cannot read video '...' after N frame(s): ...").
TEST(MediaVideo, AVideoCutInHalfEndsEarlyOrSaysWhy) {
  const std::string no_writer = yolo::media::h264_writer_unavailable_reason("mp4");
  if (!no_writer.empty()) GTEST_SKIP() << "cannot write the MP4 to cut: " << no_writer;
  yolo::testing::TempDir tmp("media_cut");
  const fs::path whole = write_video(tmp.path / "whole.mp4", 12);
  std::string bytes(fs::file_size(whole), '\0');
  std::ifstream(whole, std::ios::binary).read(bytes.data(), static_cast<long>(bytes.size()));
  std::ofstream(tmp.path / "cut.mp4", std::ios::binary)
      .write(bytes.data(), static_cast<long>(bytes.size() / 2));
  yolo::media::DecoderOptions o;
  o.timeout_s = 10;
  o.source = (tmp.path / "cut.mp4").string();
  int frames = 0;
  std::string why;
  try {
    yolo::media::FrameDecoder d(o);
    while (d.next()) ++frames;
  } catch (const yolo::media::SourceError& e) {
    why = e.what();
  }
  EXPECT_LT(frames, 12) << "all the frames from half a file";
  if (why.empty()) {
    EXPECT_GT(frames, 0) << "no error and no frame: the half there was not read";
  }
}

#ifdef YOLO_HAVE_RTSP_SERVER
// A live camera through the decoder: the same rtspsrc (TCP, 200 ms) the monitor opens it with,
// the newest frame only, and an end once the camera is gone.
TEST(MediaVideo, LiveRtspCamera) {
  yolo::testing::RtspTestServer server;
  server.start();
  yolo::media::DecoderOptions o;
  o.source = server.uri();
  o.latest_only = true;
  o.timeout_s = 5;
  yolo::media::FrameDecoder d(o);
  EXPECT_EQ(d.description().rfind(describe(server.uri()), 0), 0u) << d.description();
  EXPECT_NE(d.description().find("protocols=tcp latency=200"), std::string::npos);
  for (int i = 0; i < 5; ++i) {
    const auto f = d.next();
    ASSERT_TRUE(f) << "frame " << i;
    EXPECT_EQ(f->image.size(), cv::Size(160, 120));
  }
  // The camera goes away: the decoder ends (end of stream, or a SourceError once no frame has
  // come for timeout_s) instead of waiting for ever, and hands out at most what it had queued.
  server.stop();
  int after = 0;
  try {
    while (d.next()) ++after;
  } catch (const yolo::media::SourceError& e) {
    EXPECT_NE(std::string(e.what()).size(), 0u);
  }
  EXPECT_LE(after, 2) << "frames after the camera stopped";
}
#endif
