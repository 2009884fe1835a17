// yolo-trainer predict: source kinds, label and summary text, and whole runs on images, a
// corrupt image, a video, .txt lists, globs, an unreachable stream, and the command line.
// The model is a fresh (untrained) YOLOv8n exported at 64 px: a very low conf gives it boxes.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <set>
#include <thread>

#ifdef YOLO_HAVE_RTSP_SERVER
#include "rtsp_test_server.h"
#include "yolo/media/media_source.h"
#endif

#include "run_command.h"
#include "source_paths.h"
#include "test_files.h"
#include "video_writer.h"
#include "yolo/core/error.h"
#include "yolo/media/h264_writer.h"
#include "yolo/models/checkpoint.h"
#include "yolo/predict/frame_source.h"
#include "yolo/predict/predict_results.h"
#include "yolo/predict/predictor.h"
#include "yolo/synth/synthetic_data.h"
#include "yolo/tracking/mot_format.h"
#include "yolo/trainer/modes/predict_settings.h"
#include "yolo/trainer/settings/config.h"

namespace fs = std::filesystem;
using yolo::testing::TempDir;

namespace {

constexpr int kVideoFrames = 20;

// One model, images and video for the whole binary (made on first use).
struct Fixture {
  TempDir tmp{"predict"};
  fs::path model, images, video;
  bool has_video = false;
  std::string no_video_reason;

  Fixture() {
    torch::manual_seed(0);
    auto net = yolo::build_model("yolov8n.yaml", 2);
    net->names = {{0, "rectangle"}, {1, "ellipse"}};
    yolo::ExportOptions eo;
    eo.height = 64;
    eo.width = 64;
    eo.include_weights = false;
    model = tmp.path / "tiny.torchscript";
    yolo::export_torchscript(*net, eo, model);

    yolo::synth::SynthOptions so;
    so.dir = tmp.path / "shapes";
    so.train_images = 0;
    so.val_images = 3;
    so.imgsz = 96;
    so.num_classes = 2;
    so.threads = 1;
    no_video_reason = yolo::synth::synthetic_video_unavailable_reason();
    has_video = no_video_reason.empty();
    so.video = has_video;
    so.video_frames = kVideoFrames;
    const yolo::synth::SynthReport r = yolo::synth::generate_synthetic_dataset(so);
    images = so.dir / "images" / "val";
    video = r.video;
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

yolo::PredictOptions options(const std::string& source, const fs::path& project,
                             std::vector<std::pair<std::string, std::string>> extra = {}) {
  std::vector<std::pair<std::string, std::string>> kv = {
      {"model", fixture().model.string()},
      {"source", source},
      {"conf", "0.0001"},  // an untrained model's scores are tiny
      {"max_det", "5"},
      {"project", project.string()},
      {"name", "predict"},
      {"verbose", "false"}};
  kv.insert(kv.end(), extra.begin(), extra.end());
  yolo::Config cfg;
  cfg.apply_text_overrides(kv);
  return yolo::predict_options_from_config(cfg, "cpu");
}

std::vector<std::string> lines_of(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::vector<std::string> split(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::vector<fs::path> files_in(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool mentions(const std::vector<std::string>& problems, const std::string& what) {
  for (const auto& p : problems)
    if (p.find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

// Every source spelling maps to the kind the docs promise, without opening anything.
TEST(PredictSources, ClassifiesEveryKind) {
  TempDir tmp("predict_kinds");
  using yolo::InputKind;
  EXPECT_EQ(yolo::classify_source("a.jpg"), InputKind::kImage);
  EXPECT_EQ(yolo::classify_source("dir/B.PNG"), InputKind::kImage);
  EXPECT_EQ(yolo::classify_source(tmp.path.string()), InputKind::kFolder);
  EXPECT_EQ(yolo::classify_source("dir/*.jpg"), InputKind::kGlob);
  EXPECT_EQ(yolo::classify_source("paths.txt"), InputKind::kList);
  EXPECT_EQ(yolo::classify_source("clip.mp4"), InputKind::kVideo);
  EXPECT_EQ(yolo::classify_source("clip.MKV"), InputKind::kVideo);
  EXPECT_EQ(yolo::classify_source("rtsp://cam.local:554/live"), InputKind::kStream);
  EXPECT_EQ(yolo::classify_source("http://host/stream.mjpg"), InputKind::kStream);
  EXPECT_EQ(yolo::classify_source("https://host/videos/clip.mp4?token=1"), InputKind::kVideo);
  EXPECT_EQ(yolo::classify_source("0"), InputKind::kStream);
  EXPECT_EQ(yolo::classify_source("notes.doc"), InputKind::kUnknown);
  EXPECT_EQ(yolo::classify_source("no_extension_missing"), InputKind::kUnknown);

  EXPECT_EQ(yolo::source_stem("dir/a.b.jpg"), "a.b");
  EXPECT_EQ(yolo::source_stem("rtsp://user:pw@cam.local:554/live/cam1"), "cam1");
  EXPECT_EQ(yolo::source_stem("rtsp://cam.local:554/"), "cam.local_554");
  EXPECT_EQ(yolo::source_stem("https://host/v/clip.mp4?x=1"), "clip");
  EXPECT_EQ(yolo::source_stem("0"), "0");
}

// YOLO label lines: normalised centre/size as %g, the class, and the confidence on request.
TEST(PredictResults, LabelLinesAreUltralyticsFormat) {
  yolo::Detection a{50, 25, 150, 75, 0.875f, 1, "ellipse"};
  yolo::Detection b{0, 0, 100, 30, 0.5f, 0, "rectangle"};
  EXPECT_EQ(yolo::format_label_lines({a, b}, 200, 100, false),
            "1 0.5 0.5 0.5 0.5\n0 0.25 0.15 0.5 0.3\n");
  EXPECT_EQ(yolo::format_label_lines({a}, 200, 100, true), "1 0.5 0.5 0.5 0.5 0.875\n");
  yolo::Detection third{0, 0, 100, 100, 0.25f, 2, "triangle"};
  EXPECT_EQ(yolo::format_label_lines({third}, 300, 300, false),
            "2 0.166667 0.166667 0.333333 0.333333\n");
  EXPECT_EQ(yolo::format_label_lines({}, 200, 100, true), "");
}

// The console summary counts per class in class order; the line width scales like Ultralytics'.
TEST(PredictResults, SummaryLabelAndLineWidth) {
  yolo::Detection r{0, 0, 1, 1, 0.9f, 0, "rectangle"};
  yolo::Detection e{0, 0, 1, 1, 0.8f, 1, "ellipse"};
  EXPECT_EQ(yolo::summarize_detections({e, r, r}), "2 rectangles, 1 ellipse");
  EXPECT_EQ(yolo::summarize_detections({}), "(no detections)");
  EXPECT_EQ(yolo::detection_label(r, {}), "rectangle 0.90");
  yolo::AnnotateOptions no_conf;
  no_conf.show_conf = false;
  EXPECT_EQ(yolo::detection_label(r, no_conf), "rectangle");
  EXPECT_EQ(yolo::default_line_width(480, 640), 2);
  EXPECT_EQ(yolo::default_line_width(1080, 1920), 4);  // 4.5 rounds to even, as Python
  EXPECT_EQ(yolo::default_line_width(3000, 3000), 9);

  cv::Mat img(100, 200, CV_8UC3, cv::Scalar(0, 0, 0));
  yolo::Detection box{20, 30, 120, 90, 0.9f, 0, "rectangle"};
  yolo::annotate_detections(img, {box}, {});
  EXPECT_GT(cv::countNonZero(img.reshape(1)), 0);
  cv::Mat untouched(100, 200, CV_8UC3, cv::Scalar(0, 0, 0));
  yolo::AnnotateOptions hidden;
  hidden.show_boxes = false;
  yolo::annotate_detections(untouched, {box}, hidden);
  EXPECT_EQ(cv::countNonZero(untouched.reshape(1)), 0);
}

// A folder with a corrupt image: the others get annotated images, labels and JSON lines; the
// corrupt one is named in a problem and skipped.
TEST(Predict, ImageFolderWithACorruptImage) {
  TempDir tmp("predict_folder");
  const fs::path dir = tmp.path / "images";
  fs::copy(fixture().images, dir);
  yolo::testing::write_file(dir / "x.jpg", "this is not a JPEG");
  yolo::testing::write_file(dir / "notes.md", "ignored: not an image");

  const yolo::PredictReport r = yolo::run_predict(
      options(dir.string(), tmp.path / "runs",
              {{"save_txt", "True"}, {"save_conf", "True"}, {"save_crop", "True"}}));
  EXPECT_EQ(r.frames, 3);
  EXPECT_EQ(r.inputs, 4);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("x.jpg"), std::string::npos) << r.problems[0];
  EXPECT_NE(r.problems[0].find("cannot be decoded"), std::string::npos) << r.problems[0];
  EXPECT_EQ(r.save_dir, tmp.path / "runs" / "predict");

  const auto saved = files_in(r.save_dir, ".jpg");
  ASSERT_EQ(saved.size(), 3u);
  for (const auto& img : saved) {
    const cv::Mat annotated = cv::imread(img.string());
    const cv::Mat original = cv::imread((dir / img.filename()).string());
    ASSERT_FALSE(annotated.empty()) << img;
    EXPECT_EQ(annotated.size(), original.size()) << img;
  }
  const auto labels = files_in(r.save_dir / "labels", ".txt");
  ASSERT_EQ(labels.size(), 3u);
  EXPECT_EQ(r.label_files, 3);
  for (const auto& l : labels) {
    const auto lines = lines_of(l);
    ASSERT_FALSE(lines.empty()) << l;
    EXPECT_LE(lines.size(), 5u) << l;  // max_det
    for (const auto& line : lines) {
      const auto cols = split(line);
      ASSERT_EQ(cols.size(), 6u) << line;  // class cx cy w h conf
      for (size_t c = 1; c < 5; ++c) {
        EXPECT_GE(std::stod(cols[c]), 0.0) << line;
        EXPECT_LE(std::stod(cols[c]), 1.0) << line;
      }
    }
  }
  const auto jsonl = lines_of(r.save_dir / "predictions.jsonl");
  ASSERT_EQ(jsonl.size(), 3u);
  for (const auto& line : jsonl) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["stream_id"].get<std::string>().rfind("val_", 0), 0u) << line;
    EXPECT_EQ(j["seq"], 1);
    EXPECT_EQ(j["pts_ns"], -1);
    EXPECT_GT(j["width"].get<int>(), 0);
    EXPECT_FALSE(j["detections"].empty()) << line;
    EXPECT_EQ(j["detections"][0].count("class_name"), 1u);
  }

  // Crops of the detections, by class name.
  size_t crops = 0;
  for (const char* cls : {"rectangle", "ellipse"})
    crops += files_in(r.save_dir / "crops" / cls, ".jpg").size();
  EXPECT_GT(crops, 0u);

  // A second run goes to predict2; save=False writes no images; classes= filters.
  const yolo::PredictReport again =
      yolo::run_predict(options(dir.string(), tmp.path / "runs",
                                {{"save", "False"}, {"save_txt", "True"}, {"classes", "1"}}));
  EXPECT_EQ(again.save_dir, tmp.path / "runs" / "predict2");
  EXPECT_TRUE(files_in(again.save_dir, ".jpg").empty());
  for (const auto& l : files_in(again.save_dir / "labels", ".txt"))
    for (const auto& line : lines_of(l)) EXPECT_EQ(line.rfind("1 ", 0), 0u) << line;

  // A class the model does not have would never detect anything: refused up front.
  try {
    yolo::run_predict(options(dir.string(), tmp.path / "runs", {{"classes", "[1, 99]"}}));
    ADD_FAILURE() << "classes=99 was accepted";
  } catch (const yolo::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("classes: 99 is not a class of"), std::string::npos)
        << e.what();
  }
}

// A video: one annotated video of frames/vid_stride frames that decodes, one label file per
// kept frame, JSON lines with the source frame numbers and increasing timestamps.
TEST(Predict, VideoWithStride) {
  if (!fixture().has_video) GTEST_SKIP() << fixture().no_video_reason;
  TempDir tmp("predict_video");
  const int stride = 3;
  const yolo::PredictReport r = yolo::run_predict(
      options(fixture().video.string(), tmp.path / "runs",
              {{"save_txt", "True"}, {"vid_stride", std::to_string(stride)}, {"batch", "4"}}));
  const int kept = kVideoFrames / stride;  // Ultralytics keeps frames 2, 5, 8, ...
  EXPECT_EQ(r.frames, kept);
  EXPECT_TRUE(r.problems.empty());
  ASSERT_EQ(r.videos.size(), 1u);
  EXPECT_EQ(r.videos[0], r.save_dir / "synthetic.mp4");
  EXPECT_TRUE(files_in(r.save_dir, ".mp4").size() == 1u);  // no partial file left

  cv::VideoCapture cap(r.videos[0].string(), cv::CAP_FFMPEG);
  ASSERT_TRUE(cap.isOpened());
  int decoded = 0;
  for (cv::Mat f; cap.read(f);) {
    EXPECT_EQ(f.cols, 96);
    ++decoded;
  }
  EXPECT_EQ(decoded, kept);

  for (int k = 1; k <= kept; ++k)
    EXPECT_TRUE(fs::exists(r.save_dir / "labels" / ("synthetic_" + std::to_string(k) + ".txt")))
        << k;
  const auto jsonl = lines_of(r.save_dir / "predictions.jsonl");
  ASSERT_EQ(jsonl.size(), static_cast<size_t>(kept));
  int64_t last_pts = -1;
  for (int k = 0; k < kept; ++k) {
    const auto j = nlohmann::json::parse(jsonl[k]);
    EXPECT_EQ(j["stream_id"], "synthetic");
    EXPECT_EQ(j["frame"], (k + 1) * stride - 1);
    EXPECT_EQ(j["seq"], k + 1);
    EXPECT_GT(j["pts_ns"].get<int64_t>(), last_pts);
    last_pts = j["pts_ns"].get<int64_t>();
  }
}

// A .txt list (relative lines resolved against the list's folder) with a missing entry, and a
// glob: the listed/matched images are done, the missing one is reported.
TEST(Predict, TxtListAndGlob) {
  TempDir tmp("predict_list");
  const fs::path dir = tmp.path / "data" / "imgs";
  fs::create_directories(dir);
  fs::copy(fixture().images, dir);
  const fs::path list = tmp.path / "data" / "list.txt";
  // As a Windows editor saves it (#57): a byte-order mark and CRLF line ends.
  yolo::testing::write_file(list, "\xEF\xBB\xBFimgs/val_000000.jpg\r\n\r\n" +
                                      (dir / "val_000002.jpg").string() +
                                      "\r\nimgs/missing.jpg\r\n");
  const yolo::PredictReport r =
      yolo::run_predict(options(list.string(), tmp.path / "runs", {{"name", "list"}}));
  EXPECT_EQ(r.frames, 2);
  EXPECT_TRUE(mentions(r.problems, "missing.jpg")) << ::testing::PrintToString(r.problems);
  EXPECT_TRUE(fs::exists(r.save_dir / "val_000000.jpg"));
  EXPECT_TRUE(fs::exists(r.save_dir / "val_000002.jpg"));

  const yolo::PredictReport one = yolo::run_predict(
      options((dir / "val_00000?.jpg").string(), tmp.path / "runs", {{"name", "glob"}}));
  EXPECT_EQ(one.frames, 3);
  const yolo::PredictReport star =
      yolo::run_predict(options((dir / "*.jpg").string(), tmp.path / "runs", {{"name", "star"}}));
  EXPECT_EQ(star.frames, 3);
  EXPECT_TRUE(star.problems.empty());
  EXPECT_EQ(files_in(star.save_dir, ".jpg").size(), 3u);
  const yolo::PredictReport none =
      yolo::run_predict(options((dir / "*.png").string(), tmp.path / "runs", {{"name", "none"}}));
  EXPECT_EQ(none.frames, 0);
  EXPECT_TRUE(mentions(none.problems, "*.png"));
  // A list that is not UTF-8 text says where.
  yolo::testing::write_file(tmp.path / "latin1.txt", "imgs/caf\xE9.jpg\n");
  EXPECT_TRUE(mentions(yolo::run_predict(options((tmp.path / "latin1.txt").string(),
                                                 tmp.path / "runs", {{"name", "latin1"}}))
                           .problems,
                       "is not UTF-8 text: byte 0xE9 at line 1, column 9"));
}

// Sources that name nothing readable are reported, leave no run folder, and do not throw.
TEST(Predict, NothingReadable) {
  TempDir tmp("predict_empty");
  fs::create_directories(tmp.path / "empty");
  for (const std::string& source : {(tmp.path / "empty").string(), (tmp.path / "nope.jpg").string(),
                                    (tmp.path / "nope.mp4").string()}) {
    const yolo::PredictReport r = yolo::run_predict(options(source, tmp.path / "runs"));
    EXPECT_EQ(r.frames, 0) << source;
    ASSERT_EQ(r.problems.size(), 1u) << source;
    EXPECT_NE(r.problems[0].find(source), std::string::npos) << r.problems[0];
    EXPECT_TRUE(r.save_dir.empty());
  }
  EXPECT_FALSE(fs::exists(tmp.path / "runs"));
  // A file with a video extension that is not a video: the decoder's error, then skipped.
  yolo::testing::write_file(tmp.path / "fake.mp4", std::string(4096, 'z'));
  const yolo::PredictReport fake =
      yolo::run_predict(options((tmp.path / "fake.mp4").string(), tmp.path / "runs"));
  EXPECT_EQ(fake.frames, 0);
  ASSERT_EQ(fake.problems.size(), 1u);
  EXPECT_NE(fake.problems[0].find("fake.mp4"), std::string::npos) << fake.problems[0];
}

// An RTSP URI nobody serves fails fast with a message naming it, without crashing.
// A refused connection fails at once: stream_timeout (here far beyond the test's ctest TIMEOUT, so
// that waiting it out fails the test) bounds waiting for a source that may still answer, not one
// that has said no.
TEST(Predict, UnreachableStreamFailsCleanly) {
  TempDir tmp("predict_stream");
  const yolo::PredictReport r = yolo::run_predict(
      options("rtsp://127.0.0.1:9/x", tmp.path / "runs", {{"stream_timeout", "3600"}}));
  EXPECT_EQ(r.frames, 0);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("rtsp://127.0.0.1:9/x"), std::string::npos) << r.problems[0];
  // What to check, in the words yolo-monitor uses for the same failure.
  EXPECT_NE(r.problems[0].find(yolo::media::source_failure_hint(yolo::media::SourceKind::kRtsp)),
            std::string::npos)
      << r.problems[0];
  EXPECT_NE(r.problems[0].find("stream_timeout="), std::string::npos) << r.problems[0];
}

#ifdef YOLO_HAVE_RTSP_SERVER
// A live RTSP stream until Ctrl-C (the stop flag): frames are processed as they come, and the
// annotated video is finished and decodable after the stop.
TEST(Predict, LiveRtspStreamUntilStopped) {
  yolo::testing::RtspTestServer server(
      "( videotestsrc is-live=true pattern=ball ! video/x-raw,width=128,height=96,"
      "framerate=15/1 ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! "
      "rtph264pay name=pay0 pt=96 )");
  server.start();
  TempDir tmp("predict_rtsp");
  const yolo::PredictOptions o =
      options(server.uri(), tmp.path / "runs", {{"save_txt", "True"}, {"stream_timeout", "20"}});
  std::atomic<bool> stop{false};
  yolo::PredictReport r;
  std::thread run([&] { r = yolo::run_predict(o, &stop); });
  // Stop after a few frames have been written (or give up after 60 s).
  const fs::path jsonl = tmp.path / "runs" / "predict" / "predictions.jsonl";
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (lines_of(jsonl).size() < 5 && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  stop = true;
  run.join();

  EXPECT_TRUE(r.stopped);
  EXPECT_TRUE(r.problems.empty()) << ::testing::PrintToString(r.problems);
  ASSERT_GE(r.frames, 5);
  ASSERT_EQ(r.videos.size(), 1u);
  EXPECT_EQ(r.videos[0], r.save_dir / "cam.mp4");
  cv::VideoCapture cap(r.videos[0].string(), cv::CAP_FFMPEG);
  ASSERT_TRUE(cap.isOpened());
  int decoded = 0;
  for (cv::Mat f; cap.read(f);) ++decoded;
  EXPECT_EQ(decoded, r.frames);
  const auto lines = lines_of(jsonl);
  ASSERT_EQ(lines.size(), static_cast<size_t>(r.frames));
  const auto first = nlohmann::json::parse(lines.front());
  EXPECT_EQ(first["stream_id"], "cam");
  EXPECT_EQ(first["width"], 128);
  EXPECT_TRUE(fs::exists(r.save_dir / "labels" / "cam_1.txt"));
}
#endif

// The encoders: GStreamer H.264 in each kept container, and the OpenCV fallback used when
// x264enc is missing; every file decodes to the frames written and appears only when finished.
TEST(PredictVideo, EncodersWriteDecodableFiles) {
  TempDir tmp("predict_encoders");
  const cv::Size size(64, 48);
  auto frames_in = [](const fs::path& p) {
    cv::VideoCapture cap(p.string(), cv::CAP_FFMPEG);
    int n = 0;
    for (cv::Mat f; cap.read(f);) ++n;
    return n;
  };
  cv::Mat frame(size, CV_8UC3, cv::Scalar(40, 120, 200));
  for (const char* ext : {".mp4", ".mkv", ".avi", ".mov"}) {
    if (!yolo::media::h264_writer_unavailable_reason(ext).empty()) continue;
    yolo::predict::AnnotatedVideoWriter w(tmp.path / (std::string("gst") + ext), 10);
    for (int i = 0; i < 7; ++i) w.write(frame);
    EXPECT_FALSE(fs::exists(w.path())) << "visible before close: " << ext;
    EXPECT_EQ(w.close(), tmp.path / (std::string("gst") + ext));
    EXPECT_EQ(frames_in(tmp.path / (std::string("gst") + ext)), 7) << ext;
  }
  for (const char* ext : {".mp4", ".avi"}) {
    const fs::path p = tmp.path / (std::string("cv") + ext);
    auto enc = yolo::predict::make_opencv_encoder(p, size, 10);
    for (int i = 0; i < 5; ++i) enc->write(frame);
    enc->finish();
    EXPECT_EQ(frames_in(p), 5) << ext;
  }
  EXPECT_EQ(yolo::predict::annotated_video_path("out", "cam", "rtsp://h/live/cam?x=1"),
            fs::path("out") / "cam.mp4");
  EXPECT_EQ(yolo::predict::annotated_video_path("out", "v", "dir/v.MKV"),
            fs::path("out") / "v.mkv");
  EXPECT_EQ(yolo::predict::annotated_video_path("out", "v", "dir/v.webm"),
            fs::path("out") / "v.mp4");
}

// Invalid settings are ConfigErrors naming the key.
TEST(Predict, SettingsErrors) {
  yolo::Config cfg;
  EXPECT_THROW(yolo::predict_options_from_config(cfg, "cpu"), yolo::ConfigError);  // no model
  cfg.apply_text_overrides({{"model", "m.torchscript"}});
  EXPECT_THROW(yolo::predict_options_from_config(cfg, "cpu"), yolo::ConfigError);  // no source
  cfg.apply_text_overrides({{"source", "a.jpg"}});
  try {  // refused as it is set: the schema's range (1..10000)
    cfg.apply_text_overrides({{"vid_stride", "0"}});
    ADD_FAILURE() << "vid_stride=0 accepted";
  } catch (const yolo::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("vid_stride=0 is out of range"), std::string::npos);
  }
  cfg.apply_text_overrides({{"vid_stride", "1"}, {"classes", "[1, 2]"}});
  const auto o = yolo::predict_options_from_config(cfg, "cpu");
  EXPECT_FLOAT_EQ(o.nms.conf, 0.25f);
  EXPECT_FALSE(o.nms.multi_label);
  EXPECT_EQ(o.nms.classes, (std::vector<int>{1, 2}));
  EXPECT_EQ(o.batch, 1);
}

// `track` is predict with a tracker: conf defaults to 0.1, the tracker's settings are read and
// checked up front, results go to runs/detect/track*.
TEST(Track, SettingsDefaultsAndErrors) {
  yolo::Config cfg;
  cfg.apply_text_overrides({{"model", "m.torchscript"}, {"source", "v.mp4"}});
  const auto o = yolo::track_options_from_config(cfg, "cpu");
  ASSERT_TRUE(o.tracker.has_value());
  EXPECT_EQ(o.tracker->type, yolo::tracking::TrackerType::kBotSort);  // Ultralytics' default
  EXPECT_FLOAT_EQ(o.nms.conf, 0.1f);
  cfg.apply_text_overrides({{"tracker", "bytetrack.yaml"}, {"conf", "0.3"}});
  const auto b = yolo::track_options_from_config(cfg, "cpu");
  EXPECT_EQ(b.tracker->type, yolo::tracking::TrackerType::kByteTrack);
  EXPECT_FLOAT_EQ(b.nms.conf, 0.3f);
  cfg.apply_text_overrides({{"tracker", "no_such_tracker.yaml"}});
  EXPECT_THROW(yolo::track_options_from_config(cfg, "cpu"), yolo::UsageError);
  EXPECT_FALSE(yolo::predict_options_from_config(cfg, "cpu").tracker.has_value());
}

// Every reported detection carries its track id (JSON, labels); ids start at 1 in each video.
// The untrained model's boxes are noise, so the tracker here takes every box (thresholds 0);
// what is checked is the wiring, the tracker's behaviour has its own tests (tests/tracking/).
TEST(Track, VideoDetectionsCarryIdsThatRestartPerVideo) {
  if (!fixture().has_video) GTEST_SKIP() << fixture().no_video_reason;
  TempDir tmp("track_video");
  const fs::path tracker = tmp.path / "every_box.yaml";
  yolo::testing::write_file(tracker,
                            "tracker_type: bytetrack\ntrack_high_thresh: 0.0\n"
                            "track_low_thresh: 0.0\nnew_track_thresh: 0.0\nmatch_thresh: 1.0\n");
  const fs::path list = tmp.path / "twice.txt";
  yolo::testing::write_file(list,
                            fixture().video.string() + "\n" + fixture().video.string() + "\n");
  yolo::Config cfg;
  cfg.apply_text_overrides({{"model", fixture().model.string()},
                            {"source", list.string()},
                            {"conf", "0.0001"},
                            {"max_det", "5"},
                            {"project", (tmp.path / "runs").string()},
                            {"tracker", tracker.string()},
                            {"save_txt", "True"},
                            {"verbose", "false"}});
  const yolo::PredictReport r = yolo::run_predict(yolo::track_options_from_config(cfg, "cpu"));
  EXPECT_EQ(r.frames, 2 * kVideoFrames);
  EXPECT_EQ(r.save_dir.filename(), "track");
  const auto jsonl = lines_of(r.save_dir / "predictions.jsonl");
  ASSERT_EQ(jsonl.size(), static_cast<size_t>(2 * kVideoFrames));
  int64_t tracked = 0;
  for (size_t k = 0; k < jsonl.size(); ++k) {
    const auto j = nlohmann::json::parse(jsonl[k]);
    std::set<int64_t> ids;
    for (const auto& d : j["detections"]) {
      ASSERT_TRUE(d.contains("track_id")) << jsonl[k];
      ids.insert(d["track_id"].get<int64_t>());
      ++tracked;
    }
    EXPECT_EQ(ids.size(), j["detections"].size()) << "an id twice in one frame: " << jsonl[k];
    // The first frame of each video confirms its tracks at once, numbered from 1.
    if (k % kVideoFrames == 0 && !ids.empty()) {
      EXPECT_EQ(*ids.begin(), 1) << jsonl[k];
      EXPECT_EQ(*ids.rbegin(), static_cast<int64_t>(ids.size())) << jsonl[k];
    }
  }
  EXPECT_GT(tracked, 0);
  // Label lines end with the id: class cx cy w h id.
  const auto labels = files_in(r.save_dir / "labels", ".txt");
  ASSERT_FALSE(labels.empty());
  const auto first = lines_of(labels.front());
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(split(first.front()).size(), 6u) << first.front();
}

namespace {

// The last line of a command's output as JSON (tools/parity/trackeval_hota.py prints its there).
nlohmann::json last_json_line(const std::string& output) {
  std::string out = output.substr(0, output.find_last_not_of("\r\n") + 1);
  return nlohmann::json::parse(out.substr(out.find_last_of('\n') + 1), nullptr, false);
}

using KeyValues = std::vector<std::pair<std::string, std::string>>;

yolo::PredictOptions track_options(const KeyValues& kv) {
  yolo::Config cfg;
  cfg.apply_text_overrides(kv);
  return yolo::track_options_from_config(cfg, "cpu");
}

// seq/img1/000001.jpg ...: a square image twice, then a wide one twice. The same image gives the
// same boxes (a still object keeps its id); the wide one's boxes land elsewhere, so the
// sequence's tracker gives them new ids after those of the first two frames, while a tracker that
// starts over numbers them from 1 again. Returns the number of frames.
int write_two_image_sequence(const fs::path& seq) {
  fs::create_directories(seq / "img1");
  const std::vector<fs::path> images = files_in(fixture().images, ".jpg");
  EXPECT_GE(images.size(), 2u);
  cv::Mat wide;
  cv::resize(cv::imread(images.at(1).string()), wide, cv::Size(192, 64));
  int frames = 0;
  for (int k = 0; k < 2; ++k)
    fs::copy_file(images[0], seq / "img1" / fmt::format("{:06d}.jpg", ++frames));
  for (int k = 0; k < 2; ++k)
    cv::imwrite((seq / "img1" / fmt::format("{:06d}.jpg", ++frames)).string(), wide);
  return frames;
}

// Whether some frame has an id above its number of boxes: ids carried on from earlier frames.
bool ids_carried(const std::vector<yolo::tracking::MotRow>& rows) {
  std::map<int, std::pair<int, int>> per_frame;  // frame -> (boxes, highest id)
  for (const auto& r : rows) {
    auto& [boxes, highest] = per_frame[r.frame];
    ++boxes;
    highest = std::max(highest, r.id);
  }
  for (const auto& [frame, f] : per_frame)
    if (f.second > f.first) return true;
  return false;
}

// Ground truth from the tracks: ids renamed after frame b, which shows the same image as frame
// b + 1 (so tracks run across it and identity suffers), one box the tracker missed, and a
// zero-marked row that must not count.
std::vector<yolo::tracking::MotRow> ground_truth_from(std::vector<yolo::tracking::MotRow> gt,
                                                      int frames) {
  const int b = frames / 2 + (frames / 2 % 2 == 0 ? 1 : 0);
  for (auto& r : gt) {
    if (r.frame > b) r.id += 100;
    r.conf = 1.0;
  }
  yolo::tracking::MotRow missed = gt.front();
  missed.id = 500;
  missed.x = 5000;  // far from every box: a miss
  yolo::tracking::MotRow ignored = gt.front();
  ignored.id = 501;
  ignored.x = 6000;
  ignored.conf = 0.0;
  gt.push_back(missed);
  gt.push_back(ignored);
  return gt;
}

}  // namespace

// A folder of frames is one sequence (#53), as Ultralytics' model.track(persist=True) runs it: ids
// carry from frame to frame (persist=False starts every image over, as its `yolo track` does). A
// MOT sequence folder is tracked from its img1/ frames, numbered by file name; its tracks are
// written in MOTChallenge format, and with gt= scored as TrackEval scores them: the numbers are
// TrackEval's own on the same files when the test Python has it (label parity's oracle).
TEST(Track, AFolderOfFramesIsOneSequenceScoredAgainstGroundTruth) {
  TempDir tmp("track_sequence");
  const fs::path tracker = tmp.path / "every_box.yaml";
  yolo::testing::write_file(tracker,
                            "tracker_type: bytetrack\ntrack_high_thresh: 0.0\n"
                            "track_low_thresh: 0.0\nnew_track_thresh: 0.0\nmatch_thresh: 0.3\n"
                            "fuse_score: False\n");  // a match needs IoU >= 0.7
  const fs::path seq = tmp.path / "seq-01";
  const int frames = write_two_image_sequence(seq);
  const auto run = [&](const std::string& name, KeyValues extra) {
    KeyValues kv = {{"model", fixture().model.string()},
                    {"source", seq.string()},
                    {"conf", "0.0001"},
                    {"max_det", "5"},
                    {"project", (tmp.path / "runs").string()},
                    {"name", name},
                    {"tracker", tracker.string()},
                    {"save", "False"},
                    {"verbose", "false"}};
    kv.insert(kv.end(), extra.begin(), extra.end());
    return yolo::run_predict(track_options(kv));
  };

  const yolo::PredictReport one = run("sequence", {});
  EXPECT_EQ(one.frames, frames);
  ASSERT_FALSE(one.mot_file.empty());
  EXPECT_EQ(one.mot_file.filename(), "seq-01.txt");
  const auto rows = yolo::tracking::read_mot_file(one.mot_file).rows;
  ASSERT_FALSE(rows.empty());
  std::set<int> numbers;
  for (const auto& r : rows) numbers.insert(r.frame);
  EXPECT_EQ(*numbers.begin(), 1);
  EXPECT_LE(*numbers.rbegin(), frames);
  EXPECT_TRUE(ids_carried(rows)) << "ids started over within the sequence:\n"
                                 << yolo::tracking::format_mot_rows(rows);

  // persist=True reads as the default here; persist=False starts each image over and, with no
  // sequence to speak of, writes no MOT file and takes no gt; a gt file that is not there fails.
  EXPECT_TRUE(run("reset", {{"persist", "False"}}).mot_file.empty());
  const KeyValues base = {{"model", fixture().model.string()}, {"source", seq.string()}};
  KeyValues gt_for_reset = base, gt_missing = base;
  gt_for_reset.insert(gt_for_reset.end(), {{"persist", "False"}, {"gt", one.mot_file.string()}});
  gt_missing.push_back({"gt", (tmp.path / "no_gt.txt").string()});
  EXPECT_THROW(track_options(gt_for_reset), yolo::UsageError);
  EXPECT_THROW(track_options(gt_missing), yolo::UsageError);

  const fs::path gt_file = seq / "gt" / "gt.txt";
  fs::create_directories(gt_file.parent_path());
  yolo::tracking::write_mot_file(gt_file, ground_truth_from(rows, frames));
  const yolo::PredictReport scored = run("scored", {{"gt", gt_file.string()}});
  ASSERT_TRUE(scored.mot_metrics.has_value());
  const yolo::tracking::SequenceMetrics& m = *scored.mot_metrics;
  EXPECT_EQ(m.clear.num_gt_dets, static_cast<int64_t>(rows.size()) + 1);  // not the zero-marked
  EXPECT_EQ(m.clear.fn, 1);
  EXPECT_EQ(m.clear.fp, 0);
  EXPECT_LT(m.identity.idf1, 1.0);
  const auto saved = nlohmann::json::parse(
      yolo::testing::read_file(scored.save_dir / "mot" / "seq-01_metrics.json"));
  EXPECT_DOUBLE_EQ(saved["HOTA"]["HOTA"].get<double>(), m.hota.hota);
  EXPECT_DOUBLE_EQ(saved["CLEAR"]["MOTA"].get<double>(), m.clear.mota);
  EXPECT_DOUBLE_EQ(saved["Identity"]["IDF1"].get<double>(), m.identity.idf1);

  // TrackEval on the same two files.
  if (yolo::testing::run_command(std::string(YOLO_TEST_PYTHON) + " -c 'import trackeval'")
          .exit_code != 0) {
    GTEST_SKIP() << "TrackEval is not installed in " << YOLO_TEST_PYTHON
                 << " (tools/install-deps.sh --oracle): its numbers were not compared";
  }
  const auto r =
      yolo::testing::run_command(std::string(YOLO_TEST_PYTHON) + " " + YOLO_SOURCE_DIR +
                                 "/tools/parity/trackeval_hota.py --seq seq-01 '" +
                                 gt_file.string() + "' '" + scored.mot_file.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json te = last_json_line(r.output)["seq-01"];
  ASSERT_TRUE(te.is_object()) << r.output;
  double hota = 0;
  for (const auto& v : te["HOTA"]) hota += v.get<double>() / static_cast<double>(te["HOTA"].size());
  EXPECT_NEAR(m.hota.hota, hota, 1e-9);
  EXPECT_NEAR(m.clear.mota, te["MOTA"].get<double>(), 1e-9);
  EXPECT_NEAR(m.identity.idf1, te["IDF1"].get<double>(), 1e-9);
  EXPECT_EQ(m.clear.idsw, te["IDSW"].get<int64_t>());
  EXPECT_EQ(m.clear.fn, te["CLR_FN"].get<int64_t>());
}

// A MOT sequence's seqinfo.ini names its frames folder and the sequence (MOTChallenge's layout);
// a seqinfo.ini that names a missing folder or a malformed number fails before the run.
// A folder of frames as people save them (#68): numbers without zero padding, OS litter, notes,
// a video beside the frames. Frames come in number order with a note saying so (Ultralytics takes
// them in name order, 1, 10, 11, 2, ...); litter is passed over by name; a tracked sequence keeps
// to its images. Globs and lists follow the same rules.
TEST(Sources, AFolderOfFramesIsReadAsItsOwnerNumberedIt) {
  TempDir tmp("source_order");
  const fs::path dir = tmp.path / "frames";
  fs::create_directories(dir);
  for (int i = 1; i <= 12; ++i) yolo::testing::write_file(dir / fmt::format("{}.jpg", i), "");
  for (const char* litter : {".DS_Store", "Thumbs.db", "notes.txt"})
    yolo::testing::write_file(dir / litter, "");
  yolo::testing::write_file(dir / "clip.mp4", "");
  const auto names = [](const yolo::predict::ExpandedSource& e) {
    std::vector<std::string> out;
    for (const auto& in : e.inputs) out.push_back(fs::path(in.path).filename().string());
    return out;
  };
  const auto noted = [](const yolo::predict::ExpandedSource& e, const std::string& text) {
    return std::any_of(e.notes.begin(), e.notes.end(),
                       [&](const std::string& n) { return n.find(text) != std::string::npos; });
  };
  std::vector<std::string> frames;
  for (int i = 1; i <= 12; ++i) frames.push_back(fmt::format("{}.jpg", i));

  // predict: every image and video, in number order.
  const auto all = yolo::predict::expand_source(dir.string());
  std::vector<std::string> with_video = frames;
  with_video.push_back("clip.mp4");
  EXPECT_EQ(names(all), with_video);
  EXPECT_TRUE(all.problems.empty());
  EXPECT_TRUE(noted(all, "number order (1.jpg, 2.jpg, ... clip.mp4)")) << all.notes.back();
  EXPECT_TRUE(noted(all, "name order: 1.jpg, 10.jpg"));
  EXPECT_TRUE(noted(all,
                    "passed over 3 files that are neither image nor video: .DS_Store, "
                    "Thumbs.db, notes.txt"));

  // track (a sequence): the images only, and the video named.
  const auto sequence = yolo::predict::expand_source(dir.string(), true);
  EXPECT_EQ(names(sequence), frames);
  EXPECT_TRUE(noted(sequence, "passed over 1 video or stream (clip.mp4)"));
  const auto glob = yolo::predict::expand_source((dir / "*").string(), true);
  EXPECT_EQ(names(glob), frames);
  const fs::path list = tmp.path / "list.txt";
  yolo::testing::write_file(list, (dir / "2.jpg").string() + "\n" + (dir / "clip.mp4").string() +
                                      "\n" + (dir / "10.jpg").string() + "\n");
  const auto listed = yolo::predict::expand_source(list.string(), true);
  EXPECT_EQ(names(listed), (std::vector<std::string>{"2.jpg", "10.jpg"}));  // the list's order
  EXPECT_TRUE(noted(listed, "(clip.mp4)"));
  // A list of videos alone is no image sequence: its videos are tracked, each on its own.
  yolo::testing::write_file(list, (dir / "clip.mp4").string() + "\n");
  EXPECT_EQ(names(yolo::predict::expand_source(list.string(), true)),
            (std::vector<std::string>{"clip.mp4"}));

  // Zero-padded names: byte order already is number order, and nothing is said about it.
  const fs::path padded = tmp.path / "padded";
  fs::create_directories(padded);
  for (int i = 1; i <= 12; ++i)
    yolo::testing::write_file(padded / fmt::format("{:06d}.jpg", i), "");
  const auto zero_padded = yolo::predict::expand_source(padded.string());
  EXPECT_EQ(names(zero_padded).front(), "000001.jpg");
  EXPECT_EQ(names(zero_padded).back(), "000012.jpg");
  EXPECT_TRUE(zero_padded.notes.empty()) << zero_padded.notes.front();
}

// Frames numbered from 0 (a counter's dump) are tracked as one sequence of its images, and the
// MOTChallenge rows number them from 1, so that our own gt= reader (and TrackEval) accept them.
TEST(Track, FramesNumberedFromZeroWriteRowsFromOne) {
  TempDir tmp("track_from_zero");
  const fs::path dir = tmp.path / "dump";
  fs::create_directories(dir);
  const std::vector<fs::path> images = files_in(fixture().images, ".jpg");
  ASSERT_FALSE(images.empty());
  constexpr int kFrames = 12;
  for (int i = 0; i < kFrames; ++i) fs::copy_file(images[0], dir / fmt::format("{}.jpg", i));
  yolo::testing::write_file(dir / "clip.mp4", "not a video: it must not be opened");
  yolo::testing::write_file(dir / ".DS_Store", "");
  const fs::path tracker = tmp.path / "every_box.yaml";
  yolo::testing::write_file(tracker,
                            "tracker_type: bytetrack\ntrack_high_thresh: 0.0\n"
                            "track_low_thresh: 0.0\nnew_track_thresh: 0.0\nmatch_thresh: 0.3\n"
                            "fuse_score: False\n");
  const yolo::PredictReport r =
      yolo::run_predict(track_options({{"model", fixture().model.string()},
                                       {"tracker", tracker.string()},
                                       {"source", dir.string()},
                                       {"conf", "0.0001"},
                                       {"project", (tmp.path / "runs").string()},
                                       {"save", "False"},
                                       {"verbose", "false"}}));
  EXPECT_EQ(r.inputs, kFrames) << "the video beside the frames was taken into the sequence";
  EXPECT_EQ(r.frames, kFrames);
  ASSERT_FALSE(r.mot_file.empty());
  const auto rows = yolo::tracking::read_mot_file(r.mot_file).rows;  // refuses frame 0
  ASSERT_FALSE(rows.empty());
  std::set<int> numbers;
  for (const auto& row : rows) numbers.insert(row.frame);
  EXPECT_GE(*numbers.begin(), 1);
  EXPECT_LE(*numbers.rbegin(), kFrames);
}

// Ground truth checked before the work (#68): what the file alone tells (no rows, nothing but
// zero-marked rows, an id twice in a frame) fails before the first frame, naming the file and
// lines; a ground truth with no row on the sequence's frames is an error after the run (the
// tracks are still written), never a table of zeros.
TEST(Track, GroundTruthIsCheckedBeforeTheWorkAndEmptinessIsNamed) {
  TempDir tmp("track_gt_checks");
  const fs::path seq = tmp.path / "seq-03";
  const int frames = write_two_image_sequence(seq);
  const fs::path gt = seq / "gt" / "gt.txt";
  fs::create_directories(gt.parent_path());
  const KeyValues base = {
      {"model", fixture().model.string()},       {"source", seq.string()}, {"gt", gt.string()},
      {"project", (tmp.path / "runs").string()}, {"save", "False"},        {"verbose", "false"}};
  const auto message_of = [&](const std::string& rows) {
    yolo::testing::write_file(gt, rows);
    try {
      track_options(base);
    } catch (const yolo::UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message_of("").find("has no rows"), std::string::npos);
  EXPECT_NE(message_of("\n\n").find("has no rows"), std::string::npos);
  EXPECT_NE(message_of("1,1,10,10,20,20,0,1,1\n2,1,10,10,20,20,0,1,1\n").find("marked 0"),
            std::string::npos);
  const std::string twice = message_of(
      "1,1,10,10,20,20,1,1,1\n1,2,50,10,20,20,1,1,1\n"
      "1,1,12,10,20,20,1,1,1\n");
  EXPECT_NE(twice.find("gt.txt:3: id 1 appears twice in frame 1 (also on line 1)"),
            std::string::npos)
      << twice;

  // Rows only on frames the sequence does not have: an error naming both ranges, after the run.
  yolo::testing::write_file(gt, "100,1,10,10,20,20,1,1,1\n101,1,10,10,20,20,1,1,1\n");
  KeyValues run = base;
  run.push_back({"name", "elsewhere"});
  try {
    yolo::run_predict(track_options(run));
    ADD_FAILURE() << "a ground truth of other frames was scored";
  } catch (const yolo::FailureError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no row on the sequence's frames (its frames: 100..101; the "
                        "sequence's: 1.." +
                        std::to_string(frames) + ")"),
              std::string::npos)
        << what;
  }
  EXPECT_TRUE(fs::exists(tmp.path / "runs" / "elsewhere" / "mot" / "seq-03.txt"))
      << "the tracks must be written even when they cannot be scored";
}

TEST(Track, SeqinfoIniNamesTheFramesAndTheSequence) {
  TempDir tmp("track_seqinfo");
  const fs::path seq = tmp.path / "seq-02";
  const int frames = write_two_image_sequence(seq);
  fs::rename(seq / "img1", seq / "pictures");
  yolo::testing::write_file(seq / "seqinfo.ini",
                            "[Sequence]\nname=street-02\nimDir=pictures\nframeRate=14\n"
                            "seqLength=4\nimWidth=640\nimExt=.jpg\n");
  const KeyValues base = {{"model", fixture().model.string()},
                          {"source", seq.string()},
                          {"project", (tmp.path / "runs").string()},
                          {"save", "False"},
                          {"verbose", "false"}};
  const yolo::PredictReport report = yolo::run_predict(track_options(base));
  EXPECT_EQ(report.frames, frames);
  EXPECT_EQ(report.mot_file.filename(), "street-02.txt");

  // seqinfo.ini as files are really saved (#68): a byte-order mark and CRLF are read as any
  // editor shows them.
  yolo::testing::write_file(seq / "seqinfo.ini",
                            "\xEF\xBB\xBF[Sequence]\r\nname=street-02\r\nimDir=pictures\r\n");
  EXPECT_EQ(track_options(base).mot_name, "street-02");
  // Every other problem fails before the run, quoting what the file says (not a default it never
  // wrote), with the line.
  const auto message_of = [&](const std::string& ini) {
    yolo::testing::write_file(seq / "seqinfo.ini", ini);
    try {
      track_options(base);
    } catch (const yolo::UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  yolo::testing::write_file(seq / "notes.txt", "");
  struct Case {
    std::string ini, must_say;
  };
  for (const Case& c : {
           Case{"[Sequence]\nimDir=img1\n",
                "line 2 says imDir=img1, and " + (seq / "img1").string() + " is not there"},
           Case{"[Sequence]\nname=x\n", "names no imDir, so the frames are looked for in img1/"},
           Case{"[Sequence]\nimDir=notes.txt\n", "notes.txt is a file, not a folder of frames"},
           Case{"[Sequence]\nimDir=pictures\nframeRate=fast\n",
                "line 3 says frameRate=fast, which is not a number"},
           Case{"name=street-02\nimDir=pictures\n",
                "line 1 says name=street-02 outside a [Sequence] section"},
           Case{"[Sequense]\nimDir=pictures\n", "(it is in [Sequense])"},
           Case{"[Sequence]\nimDir=pictures\nimDir=img1\n", "imDir is given twice"},
           Case{"[Sequence]\nimDir pictures\n", "line 2 says 'imDir pictures'"},
           Case{"[Sequence]\nimDir=\xFF\n", "not UTF-8 text: byte 0xFF at line 2"},
       }) {
    const std::string message = message_of(c.ini);
    EXPECT_NE(message.find(c.must_say), std::string::npos) << c.ini << "\n" << message;
    EXPECT_NE(message.find("seqinfo.ini"), std::string::npos) << message;
  }
}

#ifdef YOLO_TRAINER_BIN
namespace {

using CliResult = yolo::testing::CommandResult;

CliResult run_cli(const std::string& args) {
  return yolo::testing::run_command(std::string(YOLO_TRAINER_BIN) + " " + args);
}

}  // namespace

// The command as a user runs it: per-image lines, the speed line, where results went; exit 1
// with a message when nothing can be read.
TEST(PredictCli, PrintsUltralyticsLinesAndExitCodes) {
  TempDir tmp("predict_cli");
  const std::string common = "model=" + fixture().model.string() + " device=cpu conf=0.0001 " +
                             "max_det=3 project=" + (tmp.path / "runs").string();
  CliResult r = run_cli("predict " + common + " source=" + fixture().images.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("image 1/3 "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(": 64x64 "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ms preprocess, "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("per image at shape (1, 3, 64, 64)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Results saved to " + (tmp.path / "runs" / "predict").string()),
            std::string::npos)
      << r.output;
  // A fixed-shape export runs square under rect (the default) and says so once (#52).
  const std::string fixed = "is a fixed-shape export: every image runs at 64x64";
  const size_t first = r.output.find(fixed);
  EXPECT_NE(first, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(fixed, first + 1), std::string::npos) << "once\n" << r.output;
  EXPECT_EQ(run_cli("predict " + common + " rect=False source=" + fixture().images.string())
                .output.find(fixed),
            std::string::npos);

  r = run_cli("predict " + common + " source=" + (tmp.path / "missing.jpg").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("missing.jpg' does not exist"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nothing could be read"), std::string::npos) << r.output;
}
#endif
