// Device-side preprocessing against the CPU reference (letterbox() + images_to_tensor()): every
// packed format with padded strides, odd sizes, up- and downscales, non-square targets and mixed
// batches; NV12 and I420 against cv::cvtColor followed by the reference; the resize alone
// against cv::resize on many random sizes; bad frames. The GPU against the CPU is
// tests/gpu/test_gpu_runtime.cpp. Measured differences are printed in grey levels (1/255).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <iostream>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <random>
#include <string>
#include <vector>

#include "cpu_linear_resize.h"
#include "linear_resize.h"
#include "yolo/runtime/cpu_frame_preprocess.h"
#include "yolo/runtime/device_preprocess.h"
#include "yolo/runtime/input_tensor.h"
#include "yolo/runtime/letterbox.h"
#include "yolo/runtime/mat_frame_view.h"

using yolo::DevicePreprocessOptions;
using yolo::FrameView;
using yolo::PixelFormat;

namespace {

// Packed formats and where B, G, R sit among their bytes.
struct PackedLayout {
  PixelFormat format;
  int bpp, b, g, r;
};
const std::vector<PackedLayout> kPacked = {
    {PixelFormat::kBGR, 3, 0, 1, 2},  {PixelFormat::kRGB, 3, 2, 1, 0},
    {PixelFormat::kBGRx, 4, 0, 1, 2}, {PixelFormat::kRGBx, 4, 2, 1, 0},
    {PixelFormat::kBGRA, 4, 0, 1, 2}, {PixelFormat::kRGBA, 4, 2, 1, 0},
};

cv::Mat random_bgr(int h, int w, int seed) {
  cv::Mat m(h, w, CV_8UC3);
  cv::theRNG().state = static_cast<uint64_t>(seed);
  cv::randu(m, 0, 256);
  return m;
}

// `bgr` repacked as `layout` with rows `stride` bytes apart; padding and the 4th byte hold
// values that must never reach the output.
std::vector<uint8_t> pack(const cv::Mat& bgr, const PackedLayout& layout, int64_t stride) {
  std::vector<uint8_t> buf(static_cast<size_t>(stride * bgr.rows), 201);
  for (int y = 0; y < bgr.rows; ++y) {
    for (int x = 0; x < bgr.cols; ++x) {
      const cv::Vec3b p = bgr.at<cv::Vec3b>(y, x);
      uint8_t* d = buf.data() + y * stride + x * layout.bpp;
      d[layout.b] = p[0];
      d[layout.g] = p[1];
      d[layout.r] = p[2];
      if (layout.bpp == 4) d[3] = 13;
    }
  }
  return buf;
}

yolo::LetterboxOptions target(int h, int w) {
  yolo::LetterboxOptions o;
  o.height = h;
  o.width = w;
  return o;
}

torch::Tensor reference(const std::vector<cv::Mat>& bgr, const yolo::LetterboxOptions& lb) {
  std::vector<cv::Mat> boxed;
  for (const cv::Mat& m : bgr) boxed.push_back(yolo::letterbox(m, lb));
  return yolo::images_to_tensor(boxed);
}

// Largest difference in grey levels, and how many values differ at all.
struct Diff {
  int max_levels = 0;
  int64_t differing = 0, total = 0;
};
Diff compare(const torch::Tensor& a, const torch::Tensor& b) {
  torch::Tensor d = (a.to(torch::kCPU, torch::kFloat) - b.to(torch::kFloat)).abs().mul_(255);
  Diff r;
  r.max_levels = static_cast<int>(std::lround(d.max().item<float>()));
  r.differing = d.gt(0.5).sum().item<int64_t>();
  r.total = d.numel();
  return r;
}

void report(const std::string& what, const Diff& d) {
  std::cout << "[ measured ] " << what << ": max " << d.max_levels << " grey level(s), "
            << d.differing << " of " << d.total << " values differ\n";
}

// 4:2:0 test frame: random planes, kept both as OpenCV's contiguous layout (for cvtColor) and
// as a padded buffer with GstVideoInfo-style offsets and strides.
struct YuvFrame {
  int w, h;
  cv::Mat contiguous;  // (h * 3/2, w) CV_8UC1, what cv::cvtColor takes
  std::vector<uint8_t> padded;
  size_t offsets[3];
  int strides[3];
  FrameView view(PixelFormat format) const {
    return FrameView::from_offsets(format, w, h, padded.data(), offsets, strides);
  }
};

YuvFrame random_yuv(PixelFormat format, int h, int w, int seed) {
  YuvFrame f{w, h, cv::Mat(h * 3 / 2, w, CV_8UC1), {}, {}, {}};
  cv::theRNG().state = static_cast<uint64_t>(seed);
  cv::randu(f.contiguous, 0, 256);
  const uint8_t* src = f.contiguous.data;
  // Strides padded past the row (as GStreamer aligns them), planes separated by a gap.
  const int planes = format == PixelFormat::kNV12 ? 2 : 3;
  const int rows[3] = {h, h / 2, h / 2};
  const int row_bytes[3] = {w, format == PixelFormat::kNV12 ? w : w / 2, w / 2};
  size_t size = 0;
  for (int p = 0; p < planes; ++p) {
    f.strides[p] = (row_bytes[p] + 63) / 64 * 64 + 32;
    f.offsets[p] = size + 16;
    size = f.offsets[p] + static_cast<size_t>(f.strides[p]) * rows[p];
  }
  f.padded.assign(size, 7);
  for (int p = 0; p < planes; ++p) {
    for (int y = 0; y < rows[p]; ++y) {
      std::copy(src, src + row_bytes[p], f.padded.data() + f.offsets[p] + y * f.strides[p]);
      src += row_bytes[p];
    }
  }
  return f;
}

cv::Mat yuv_to_bgr_opencv(const YuvFrame& f, PixelFormat format) {
  cv::Mat bgr;
  cv::cvtColor(f.contiguous, bgr,
               format == PixelFormat::kNV12 ? cv::COLOR_YUV2BGR_NV12 : cv::COLOR_YUV2BGR_I420);
  return bgr;
}

struct SizeCase {
  int src_h, src_w, dst_h, dst_w;
  const char* what;
};
const std::vector<SizeCase> kSizes = {
    {563, 1000, 640, 640, "odd downscale"},        {211, 333, 640, 640, "odd upscale"},
    {480, 640, 640, 640, "no resize, pad only"},   {720, 1280, 640, 640, "exact 2x downscale"},
    {1080, 1920, 640, 640, "1080p, 3x downscale"}, {563, 1000, 384, 640, "non-square target"},
    {97, 131, 320, 480, "non-square upscale"},     {3, 5, 64, 64, "tiny, 12.8x upscale"},
};

std::string size_name(const SizeCase& c) {
  return std::to_string(c.src_w) + "x" + std::to_string(c.src_h) + " -> " +
         std::to_string(c.dst_w) + "x" + std::to_string(c.dst_h);
}

}  // namespace

// Every packed format, odd sizes, padded strides: the same bytes as the CPU letterbox path.
TEST(DevicePreprocess, PackedFormatsMatchCpuReference) {
  int seed = 1;
  for (const SizeCase& c : kSizes) {
    const cv::Mat bgr = random_bgr(c.src_h, c.src_w, seed++);
    DevicePreprocessOptions o;
    o.letterbox = target(c.dst_h, c.dst_w);
    const torch::Tensor ref = reference({bgr}, o.letterbox);
    for (const PackedLayout& layout : kPacked) {
      // e.g. 1000 x 3 bytes in rows of 3072.
      const int64_t stride = (static_cast<int64_t>(c.src_w) * layout.bpp + 1023) / 1024 * 1024;
      const std::vector<uint8_t> buf = pack(bgr, layout, stride);
      const auto batch = yolo::preprocess_frames(
          {FrameView::packed(layout.format, c.src_w, c.src_h, buf.data(), stride)}, o);
      ASSERT_EQ(batch.input.sizes(), ref.sizes());
      EXPECT_EQ(batch.input.scalar_type(), torch::kFloat);
      const Diff d = compare(batch.input, ref);
      report(std::string(yolo::to_string(layout.format)) + " " + size_name(c) + " (" + c.what + ")",
             d);
      EXPECT_LE(d.max_levels, 1) << yolo::to_string(layout.format) << " " << size_name(c);
    }
  }
}

// NV12 and I420 with padded plane strides and offsets: the same as cv::cvtColor then the CPU
// path.
TEST(DevicePreprocess, YuvFormatsMatchCvtColorThenCpuReference) {
  int seed = 100;
  for (PixelFormat format : {PixelFormat::kNV12, PixelFormat::kI420}) {
    for (const SizeCase& c : kSizes) {
      if (c.src_w % 2 || c.src_h % 2) continue;  // 4:2:0 needs even sizes
      const YuvFrame f = random_yuv(format, c.src_h, c.src_w, seed++);
      DevicePreprocessOptions o;
      o.letterbox = target(c.dst_h, c.dst_w);
      const torch::Tensor ref = reference({yuv_to_bgr_opencv(f, format)}, o.letterbox);
      const auto batch = yolo::preprocess_frames({f.view(format)}, o);
      ASSERT_EQ(batch.input.sizes(), ref.sizes());
      const Diff d = compare(batch.input, ref);
      report(std::string(yolo::to_string(format)) + " " + size_name(c) + " (" + c.what + ")", d);
      EXPECT_LE(d.max_levels, 1) << yolo::to_string(format) << " " << size_name(c);
    }
  }
}

// Odd-sized YUV frames are cropped views of even ones in practice; an even size with odd half
// (e.g. 1002x562: 501x281 chroma) checks chroma indexing on odd chroma counts.
TEST(DevicePreprocess, YuvWithOddChromaSize) {
  for (PixelFormat format : {PixelFormat::kNV12, PixelFormat::kI420}) {
    const YuvFrame f = random_yuv(format, 562, 1002, 7);
    DevicePreprocessOptions o;
    const torch::Tensor ref = reference({yuv_to_bgr_opencv(f, format)}, o.letterbox);
    const Diff d = compare(yolo::preprocess_frames({f.view(format)}, o).input, ref);
    report(std::string(yolo::to_string(format)) + " 1002x562 -> 640x640", d);
    EXPECT_LE(d.max_levels, 1);
  }
}

// One call with differently sized frames of different formats: each row of the batch is that
// frame's reference, and each transform is compute_letterbox() of its size.
TEST(DevicePreprocess, MixedBatch) {
  const cv::Mat a = random_bgr(563, 1000, 11), b = random_bgr(211, 333, 12);
  const YuvFrame c = random_yuv(PixelFormat::kNV12, 480, 640, 13);
  const std::vector<uint8_t> b_rgba = pack(b, kPacked[5], 333 * 4 + 12);
  DevicePreprocessOptions o;
  o.letterbox = target(384, 640);
  const auto batch = yolo::preprocess_frames(
      {yolo::frame_view_of_mat(a),
       FrameView::packed(PixelFormat::kRGBA, 333, 211, b_rgba.data(), 333 * 4 + 12),
       c.view(PixelFormat::kNV12)},
      o);
  const torch::Tensor ref =
      reference({a, b, yuv_to_bgr_opencv(c, PixelFormat::kNV12)}, o.letterbox);
  ASSERT_EQ(batch.input.sizes(), ref.sizes());
  const Diff d = compare(batch.input, ref);
  report("mixed batch BGR 1000x563, RGBA 333x211, NV12 640x480 -> 640x384", d);
  EXPECT_LE(d.max_levels, 1);
  ASSERT_EQ(batch.transforms.size(), 3u);
  const int sizes[3][2] = {{563, 1000}, {211, 333}, {480, 640}};
  for (int i = 0; i < 3; ++i) {
    const auto t = yolo::compute_letterbox(sizes[i][0], sizes[i][1], o.letterbox);
    const auto& u = batch.transforms[static_cast<size_t>(i)];
    EXPECT_EQ(u.resized_width, t.resized_width);
    EXPECT_EQ(u.resized_height, t.resized_height);
    EXPECT_EQ(u.pad_left, t.pad_left);
    EXPECT_EQ(u.pad_top, t.pad_top);
    EXPECT_DOUBLE_EQ(u.gain_x, t.gain_x);
    EXPECT_DOUBLE_EQ(u.back_gain_y, t.back_gain_y);
  }
}

// The other letterbox options (no scaleup, pad only bottom/right, another pad value) follow the
// CPU path too.
TEST(DevicePreprocess, LetterboxOptionsFollowCpuPath) {
  const cv::Mat bgr = random_bgr(301, 257, 21);
  yolo::LetterboxOptions lb = target(640, 512);
  lb.scaleup = false;
  lb.center = false;
  lb.pad_value = 0;
  DevicePreprocessOptions o;
  o.letterbox = lb;
  const Diff d = compare(yolo::preprocess_frames({yolo::frame_view_of_mat(bgr)}, o).input,
                         reference({bgr}, lb));
  EXPECT_LE(d.max_levels, 1);
  lb = target(640, 640);
  lb.scale_fill = true;  // stretch: different gains per axis
  o.letterbox = lb;
  const Diff s = compare(yolo::preprocess_frames({yolo::frame_view_of_mat(bgr)}, o).input,
                         reference({bgr}, lb));
  report("BGR 257x301 scale_fill -> 640x640", s);
  EXPECT_LE(s.max_levels, 1);
}

// The resize alone against cv::resize(INTER_LINEAR) on many random size pairs (each axis up,
// down or unchanged), 3 and 1 channels.
TEST(DevicePreprocess, ResizeMatchesOpenCvOnRandomSizes) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> size(1, 240);
  int worst = 0;
  int64_t differing = 0, total = 0;
  for (int i = 0; i < 150; ++i) {
    const int sh = size(rng), sw = size(rng), dh = size(rng), dw = size(rng);
    const int channels = i % 4 == 0 ? 1 : 3;
    cv::Mat src(sh, sw, CV_8UC(channels));
    cv::randu(src, 0, 256);
    cv::Mat expected;
    cv::resize(src, expected, cv::Size(dw, dh), 0, 0, cv::INTER_LINEAR);
    const torch::Tensor t = torch::from_blob(src.data, {sh, sw, channels}, torch::kByte);
    const torch::Tensor got = yolo::resize_linear(t, dh, dw);
    const torch::Tensor want =
        torch::from_blob(expected.data, {dh, dw, channels}, torch::kByte).clone();
    const torch::Tensor d = (got.to(torch::kInt) - want.to(torch::kInt)).abs();
    const int m = d.max().item<int>();
    worst = std::max(worst, m);
    differing += d.gt(0).sum().item<int64_t>();
    total += d.numel();
    EXPECT_LE(m, 1) << sw << "x" << sh << " -> " << dw << "x" << dh << " (" << channels
                    << " channels)";
  }
  std::cout << "[ measured ] resize vs cv::resize, 150 random size pairs: max " << worst
            << " grey level(s), " << differing << " of " << total << " values differ\n";
}

// The CPU replay of the resize (the `yolo` element's CPU path) is cv::resize exactly, on random
// size pairs and on the camera sizes a stream letterboxes (odd widths reach the scalar tail of
// OpenCV's vertical pass), with one resizer reused across all of them as a stream reuses it.
TEST(CpuLinearResize, IsOpenCvsResizeExactly) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> size(1, 300);
  std::vector<std::array<int, 4>> pairs = {
      {720, 1280, 360, 640},  {1080, 1920, 360, 640}, {576, 768, 480, 640}, {480, 640, 384, 512},
      {1080, 1920, 227, 405}, {120, 160, 48, 64},     {100, 101, 333, 317}};
  for (int i = 0; i < 300; ++i) pairs.push_back({size(rng), size(rng), size(rng), size(rng)});
  yolo::CpuLinearResize resize;
  int64_t differing = 0;
  for (const auto& [sh, sw, dh, dw] : pairs) {
    if (sh == dh && sw == dw) continue;  // letterbox() does not resize then
    cv::Mat src(sh, sw, CV_8UC3);
    cv::randu(src, 0, 256);
    cv::Mat expected, got(dh, dw, CV_8UC3);
    cv::resize(src, expected, cv::Size(dw, dh), 0, 0, cv::INTER_LINEAR);
    resize.run(src.data, sh, sw, src.step[0], got.data, dh, dw, got.step[0]);
    const int64_t d = cv::countNonZero(cv::Mat(expected != got).reshape(1));
    differing += d;
    EXPECT_EQ(d, 0) << sw << "x" << sh << " -> " << dw << "x" << dh;
  }
  EXPECT_EQ(differing, 0);
}

// BT.709 and full range: grey stays grey, the range ends map to black and white, and colours
// follow the standard's float formula within one level.
TEST(DevicePreprocess, Bt709AndFullRange) {
  // One 2x2 block per Y value with neutral or strong chroma.
  const int w = 8, h = 2;
  std::vector<uint8_t> nv12(static_cast<size_t>(w * h + w * h / 2));
  const uint8_t ys[4] = {16, 126, 235, 60};
  const uint8_t us[4] = {128, 128, 128, 200}, vs[4] = {128, 128, 128, 90};
  for (int bx = 0; bx < 4; ++bx) {
    for (int y = 0; y < 2; ++y) nv12[y * w + 2 * bx] = nv12[y * w + 2 * bx + 1] = ys[bx];
    nv12[w * h + 2 * bx] = us[bx];
    nv12[w * h + 2 * bx + 1] = vs[bx];
  }
  const size_t offsets[2] = {0, static_cast<size_t>(w * h)};
  const int strides[2] = {w, w};
  const FrameView f =
      FrameView::from_offsets(PixelFormat::kNV12, w, h, nv12.data(), offsets, strides);
  auto rgb_at = [&](yolo::YuvMatrix m, yolo::YuvRange r, int x) {
    DevicePreprocessOptions o;
    o.letterbox = target(h, w);  // no resize, no padding
    o.yuv_matrix = m;
    o.yuv_range = r;
    torch::Tensor px = yolo::preprocess_frames({f}, o).input[0].select(2, x).select(1, 0) * 255;
    return std::vector<float>{px[0].item<float>(), px[1].item<float>(), px[2].item<float>()};
  };
  using yolo::YuvMatrix;
  using yolo::YuvRange;
  EXPECT_EQ(rgb_at(YuvMatrix::kBT709, YuvRange::kLimited, 0), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(rgb_at(YuvMatrix::kBT709, YuvRange::kLimited, 4), (std::vector<float>{255, 255, 255}));
  const auto grey = rgb_at(YuvMatrix::kBT709, YuvRange::kLimited, 2);
  EXPECT_EQ(grey, rgb_at(YuvMatrix::kBT601, YuvRange::kLimited, 2));
  EXPECT_EQ(grey[0], grey[1]);
  EXPECT_EQ(rgb_at(YuvMatrix::kBT601, YuvRange::kFull, 2), (std::vector<float>{126, 126, 126}));
  // Y = 60, U = 200, V = 90 in BT.709 limited range, by the float formula.
  const double yy = (60 - 16) * 255.0 / 219, u = (200 - 128) * 255.0 / 224,
               v = (90 - 128) * 255.0 / 224;
  const double kr = 0.2126, kb = 0.0722, kg = 1 - kr - kb;
  const double want[3] = {yy + 2 * (1 - kr) * v,
                          yy - 2 * (1 - kb) * kb / kg * u - 2 * (1 - kr) * kr / kg * v,
                          yy + 2 * (1 - kb) * u};
  const auto got = rgb_at(YuvMatrix::kBT709, YuvRange::kLimited, 6);
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(got[static_cast<size_t>(c)], std::clamp(want[c], 0.0, 255.0), 1.0) << c;
  }
  EXPECT_NE(got, rgb_at(YuvMatrix::kBT601, YuvRange::kLimited, 6));
}

// The CPU path (preprocess_frames_on_cpu, what the `yolo` element runs on a CPU) is the CPU
// reference itself: every packed format and NV12 / I420 give exactly letterbox() +
// images_to_tensor() of the frame's BGR (YUV: cv::cvtColor's BGR, BT.601 limited), with the same
// transforms as the device path, and within 1 level of the device path.
TEST(CpuFramePreprocess, IsTheCpuReferenceExactly) {
  int seed = 500;
  for (const SizeCase& c : kSizes) {
    DevicePreprocessOptions o;
    o.letterbox = target(c.dst_h, c.dst_w);
    const cv::Mat bgr = random_bgr(c.src_h, c.src_w, seed++);
    const torch::Tensor ref = reference({bgr}, o.letterbox);
    for (const PackedLayout& layout : kPacked) {
      const int64_t stride = (static_cast<int64_t>(c.src_w) * layout.bpp + 1023) / 1024 * 1024;
      const std::vector<uint8_t> buf = pack(bgr, layout, stride);
      const FrameView view = FrameView::packed(layout.format, c.src_w, c.src_h, buf.data(), stride);
      const auto cpu = yolo::preprocess_frames_on_cpu({view}, o);
      ASSERT_EQ(cpu.input.sizes(), ref.sizes());
      EXPECT_TRUE(torch::equal(cpu.input, ref))
          << yolo::to_string(layout.format) << " " << size_name(c);
      const auto device = yolo::preprocess_frames({view}, o);
      EXPECT_LE(compare(cpu.input, device.input).max_levels, 1);
      EXPECT_EQ(cpu.transforms.front().out_width, device.transforms.front().out_width);
      EXPECT_EQ(cpu.transforms.front().pad_left, device.transforms.front().pad_left);
      EXPECT_EQ(cpu.transforms.front().pad_top, device.transforms.front().pad_top);
    }
    if (c.src_w % 2 || c.src_h % 2) continue;
    for (PixelFormat format : {PixelFormat::kNV12, PixelFormat::kI420}) {
      const YuvFrame f = random_yuv(format, c.src_h, c.src_w, seed++);
      const auto cpu = yolo::preprocess_frames_on_cpu({f.view(format)}, o);
      EXPECT_TRUE(torch::equal(cpu.input, reference({yuv_to_bgr_opencv(f, format)}, o.letterbox)))
          << yolo::to_string(format) << " " << size_name(c);
    }
  }
  // preprocess_frames_for_device takes this path on the CPU; half=true rounds its result.
  const cv::Mat bgr = random_bgr(90, 160, 7);
  DevicePreprocessOptions o;
  o.letterbox = target(64, 64);
  const torch::Tensor full =
      yolo::preprocess_frames_for_device({yolo::frame_view_of_mat(bgr)}, o).input;
  EXPECT_TRUE(torch::equal(full, reference({bgr}, o.letterbox)));
  o.half = true;
  EXPECT_TRUE(torch::equal(yolo::preprocess_frames_on_cpu({yolo::frame_view_of_mat(bgr)}, o).input,
                           full.to(torch::kHalf)));
  EXPECT_THROW(yolo::preprocess_frames_on_cpu({}, o), std::invalid_argument);
}

// half=true gives float16 holding the float32 result rounded.
TEST(DevicePreprocess, HalfOutput) {
  const cv::Mat bgr = random_bgr(100, 150, 31);
  DevicePreprocessOptions o;
  o.letterbox = target(128, 128);
  const torch::Tensor full = yolo::preprocess_frames({yolo::frame_view_of_mat(bgr)}, o).input;
  o.half = true;
  const torch::Tensor half = yolo::preprocess_frames({yolo::frame_view_of_mat(bgr)}, o).input;
  EXPECT_EQ(half.scalar_type(), torch::kHalf);
  EXPECT_TRUE(torch::equal(half, full.to(torch::kHalf)));
}

// The result owns its memory: changing the frame afterwards changes nothing (CPU frames are
// read in place, so this is not automatic).
TEST(DevicePreprocess, ResultDoesNotAliasFrame) {
  cv::Mat bgr = random_bgr(480, 640, 41);
  DevicePreprocessOptions o;  // 640x480 -> 640x640: no resize
  for (PixelFormat format : {PixelFormat::kRGB, PixelFormat::kBGR}) {
    const torch::Tensor x =
        yolo::preprocess_frames({yolo::frame_view_of_mat(bgr, format)}, o).input;
    const torch::Tensor before = x.clone();
    bgr.setTo(cv::Scalar::all(0));
    EXPECT_TRUE(torch::equal(x, before)) << yolo::to_string(format);
    bgr = random_bgr(480, 640, 42);
  }
}

// Unusable frames fail with std::invalid_argument that names the frame and the problem.
TEST(DevicePreprocess, RejectsBadFrames) {
  const std::vector<uint8_t> buf(64 * 64 * 4, 0);
  DevicePreprocessOptions o;
  o.letterbox = target(64, 64);
  auto message = [&](const std::vector<FrameView>& frames) -> std::string {
    try {
      yolo::preprocess_frames(frames, o);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no exception)";
  };
  const FrameView good = FrameView::packed(PixelFormat::kBGR, 16, 16, buf.data());
  EXPECT_NE(message({}).find("no frames"), std::string::npos);

  FrameView short_stride = FrameView::packed(PixelFormat::kBGRx, 16, 16, buf.data(), 60);
  const std::string s = message({good, short_stride});
  EXPECT_NE(s.find("frame 1"), std::string::npos) << s;
  EXPECT_NE(s.find("stride"), std::string::npos) << s;
  EXPECT_NE(s.find("64"), std::string::npos) << s;  // the row it needs: 16 x 4 bytes

  const size_t offsets[3] = {0, 15 * 16, 15 * 16 + 8 * 8};
  const int strides[3] = {16, 16, 8};
  const std::string odd =
      message({FrameView::from_offsets(PixelFormat::kNV12, 15, 16, buf.data(), offsets, strides)});
  EXPECT_NE(odd.find("even"), std::string::npos) << odd;
  EXPECT_NE(odd.find("NV12 15x16"), std::string::npos) << odd;

  FrameView null_plane =
      FrameView::from_offsets(PixelFormat::kI420, 16, 16, buf.data(), offsets, strides);
  null_plane.data[2] = nullptr;
  const std::string n = message({null_plane});
  EXPECT_NE(n.find("null"), std::string::npos) << n;
  EXPECT_NE(n.find("plane 2 (V)"), std::string::npos) << n;

  EXPECT_NE(message({FrameView::packed(PixelFormat::kRGB, 16, 16, nullptr)}).find("null"),
            std::string::npos);
  EXPECT_NE(message({FrameView::packed(PixelFormat::kRGB, 0, 16, buf.data(), 48)}).find("positive"),
            std::string::npos);
  const FrameView narrow_uv = [&] {
    FrameView f = FrameView::from_offsets(PixelFormat::kNV12, 16, 16, buf.data(), offsets, strides);
    f.stride[1] = 8;  // UV rows hold 8 pairs = 16 bytes
    return f;
  }();
  EXPECT_NE(message({narrow_uv}).find("plane 1 (UV)"), std::string::npos);

  // auto_stride letterboxes frames of different aspect to different sizes.
  o.letterbox.auto_stride = true;
  const FrameView wide = FrameView::packed(PixelFormat::kBGR, 32, 8, buf.data());
  EXPECT_NE(message({good, wide}).find("auto_stride"), std::string::npos);

  EXPECT_THROW(yolo::frame_view_of_mat(cv::Mat(4, 4, CV_8UC3), PixelFormat::kRGBA),
               std::invalid_argument);
  EXPECT_THROW(FrameView::packed(PixelFormat::kNV12, 4, 4, buf.data()), std::invalid_argument);
}
