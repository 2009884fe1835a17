// Tests of the synthetic dataset and video generator: layout, label format, labels that match
// the pixels, determinism, the video and its ground truth, and option errors.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "yolo/synth/synthetic_data.h"

namespace fs = std::filesystem;
using yolo::synth::SynthImage;
using yolo::synth::SynthOptions;
using yolo::synth::SynthSplit;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<fs::path> files_in(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ext) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Label {
  int cls;
  double cx, cy, w, h;
};

std::vector<Label> parse_labels(const std::string& text) {
  std::vector<Label> out;
  for (const auto& line : lines_of(text)) {
    std::istringstream in(line);
    Label l;
    in >> l.cls >> l.cx >> l.cy >> l.w >> l.h;
    out.push_back(l);
  }
  return out;
}

class SynthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("yolo_test_synth_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  SynthOptions small(const std::string& name) const {
    SynthOptions o;
    o.dir = root_ / name;
    o.train_images = 12;
    o.val_images = 4;
    o.imgsz = 160;
    o.num_classes = 5;
    o.seed = 7;
    return o;
  }

  fs::path root_;
};

// The Ultralytics layout, data.yaml and the label format a trainer reads.
TEST_F(SynthTest, WritesUltralyticsLayoutWithValidLabels) {
  const SynthOptions o = small("ds");
  const auto report = yolo::synth::generate_synthetic_dataset(o);

  EXPECT_EQ(report.train_images, 12);
  EXPECT_EQ(report.val_images, 4);
  EXPECT_EQ(report.yaml, o.dir / "data.yaml");
  EXPECT_TRUE(report.video.empty());
  ASSERT_EQ(report.class_instances.size(), 5u);

  const YAML::Node yaml = YAML::LoadFile(report.yaml.string());
  // No `path:` key: both tools then resolve the splits against the YAML's folder (Ultralytics
  // resolves a relative `path` against the working folder instead).
  EXPECT_FALSE(yaml["path"].IsDefined());
  EXPECT_EQ(yaml["train"].as<std::string>(), "images/train");
  EXPECT_EQ(yaml["val"].as<std::string>(), "images/val");
  EXPECT_EQ(yaml["nc"].as<int>(), 5);
  ASSERT_TRUE(yaml["names"].IsMap());
  ASSERT_EQ(yaml["names"].size(), 5u);
  for (int c = 0; c < 5; ++c) {
    EXPECT_EQ(yaml["names"][c].as<std::string>(), yolo::synth::kShapeClassNames[c]);
  }

  int lines_total = 0;
  for (const auto& [split, count] : {std::pair<std::string, int>{"train", 12}, {"val", 4}}) {
    const auto images = files_in(o.dir / "images" / split, ".jpg");
    const auto labels = files_in(o.dir / "labels" / split, ".txt");
    ASSERT_EQ(images.size(), static_cast<size_t>(count)) << split;
    ASSERT_EQ(labels.size(), static_cast<size_t>(count)) << split;
    for (size_t i = 0; i < images.size(); ++i) {
      EXPECT_EQ(images[i].stem(), labels[i].stem());
      const cv::Mat img = cv::imread(images[i].string());
      ASSERT_FALSE(img.empty()) << images[i];
      const int long_side = std::max(img.cols, img.rows);
      EXPECT_GE(long_side, o.imgsz / 2);
      EXPECT_LE(long_side, o.imgsz);
      for (const auto& line : lines_of(read_text(labels[i]))) {
        ++lines_total;
        std::istringstream in(line);
        std::vector<std::string> cols;
        for (std::string c; in >> c;) cols.push_back(c);
        ASSERT_EQ(cols.size(), 5u) << labels[i] << ": " << line;
        const int cls = std::stoi(cols[0]);
        EXPECT_GE(cls, 0);
        EXPECT_LT(cls, 5);
        for (int k = 1; k < 5; ++k) {
          EXPECT_EQ(cols[k].size() - cols[k].find('.') - 1, 6u) << "6 decimals: " << line;
          const double v = std::stod(cols[k]);
          EXPECT_GE(v, 0.0) << line;
          EXPECT_LE(v, 1.0) << line;
        }
        EXPECT_GT(std::stod(cols[3]), 0.0);
        EXPECT_GT(std::stod(cols[4]), 0.0);
      }
    }
  }
  EXPECT_EQ(report.instances, lines_total);
  EXPECT_GT(lines_total, 16) << "about 4.5 shapes per image expected";
}

// Every label is the tight box of pixels that really show its object, and no pixel of a shape
// is left without a label: outside the labelled masks the image is pure background.
// Image `i` of the train split on disk is `rendered`: exactly for PNG, within JPEG's loss
// otherwise.
void expect_written_as_rendered(const SynthOptions& o, int i, const cv::Mat& rendered) {
  const bool png = o.image_format == yolo::synth::ImageFormat::kPng;
  const cv::Mat written = cv::imread(
      (o.dir / "images" / "train" / cv::format(png ? "train_%06d.png" : "train_%06d.jpg", i))
          .string());
  ASSERT_EQ(written.size(), rendered.size());
  if (png) {
    EXPECT_EQ(cv::norm(written, rendered, cv::NORM_INF), 0.0) << "PNG is lossless, image " << i;
    return;
  }
  // Compared after a blur: JPEG drops the pixel-level sensor noise first, not the picture.
  cv::Mat jpeg_blur, image_blur;
  cv::GaussianBlur(written, jpeg_blur, {5, 5}, 0);
  cv::GaussianBlur(rendered, image_blur, {5, 5}, 0);
  EXPECT_LT(cv::norm(jpeg_blur, image_blur, cv::NORM_L1) / rendered.total() / 3, 4.0);
}

// Generates `o` and checks every image against its render: labels are the tight boxes of the
// visible pixels, nothing unlabelled changed, and the file on disk is the render (exactly for
// PNG; within JPEG's loss otherwise). `contrast`: every object stands out from what it covers,
// which the generator promises only when it picks the colours (shape classes).
void expect_labels_match_pixels(const SynthOptions& o, bool contrast) {
  SCOPED_TRACE(o.dir.filename().string());
  yolo::synth::generate_synthetic_dataset(o);

  int objects = 0, dropped = 0, occluded = 0;
  std::set<int> classes;
  for (int i = 0; i < o.train_images; ++i) {
    const SynthImage s = yolo::synth::render_synthetic_image(o, SynthSplit::kTrain, i);
    ASSERT_EQ(s.image.type(), CV_8UC3);
    ASSERT_EQ(s.background.size(), s.image.size());
    dropped += s.dropped_objects;

    cv::Mat covered = cv::Mat::zeros(s.image.size(), CV_8UC1);
    for (const auto& obj : s.objects) {
      ++objects;
      classes.insert(obj.class_id);
      ASSERT_EQ(obj.visible_mask.size(), s.image.size());
      const int area = cv::countNonZero(obj.visible_mask);
      ASSERT_GT(area, 0) << "a label without pixels in image " << i;
      EXPECT_EQ(cv::boundingRect(obj.visible_mask), obj.box) << "image " << i;
      EXPECT_GE(obj.box.width, o.min_box_px);
      EXPECT_GE(obj.box.height, o.min_box_px);
      EXPECT_GE(obj.visibility, o.min_visible_fraction);
      EXPECT_LE(obj.visibility, 1.0);
      if (obj.visibility < 0.999) ++occluded;
      // Disjoint masks: each pixel belongs to at most one object.
      cv::Mat overlap;
      cv::bitwise_and(covered, obj.visible_mask, overlap);
      EXPECT_EQ(cv::countNonZero(overlap), 0) << "image " << i;
      covered |= obj.visible_mask;
      // The object's pixels differ from the background it covers (contrasting colours).
      const cv::Scalar diff = cv::mean(cv::abs(s.image - s.background), obj.visible_mask);
      if (contrast) {
        EXPECT_GT(diff[0] + diff[1] + diff[2], 30.0) << "image " << i;
      }
    }
    // Outside the labelled masks: exactly the background, so no unlabelled shape pixels.
    cv::Mat diff;
    cv::absdiff(s.image, s.background, diff);
    cv::Mat outside;
    cv::bitwise_not(covered, outside);
    cv::Mat diff_gray;
    cv::cvtColor(diff, diff_gray, cv::COLOR_BGR2GRAY);
    diff_gray.setTo(0, covered);
    EXPECT_EQ(cv::countNonZero(diff_gray), 0) << "unlabelled pixels changed in image " << i;

    // The label file on disk says the same, within rounding (±1 px).
    const auto labels =
        parse_labels(read_text(o.dir / "labels" / "train" / cv::format("train_%06d.txt", i)));
    ASSERT_EQ(labels.size(), s.objects.size()) << "image " << i;
    const double w = s.image.cols, h = s.image.rows;
    for (size_t k = 0; k < labels.size(); ++k) {
      const auto& l = labels[k];
      const cv::Rect& b = s.objects[k].box;
      EXPECT_EQ(l.cls, s.objects[k].class_id);
      EXPECT_NEAR((l.cx - l.w / 2) * w, b.x, 1.0);
      EXPECT_NEAR((l.cy - l.h / 2) * h, b.y, 1.0);
      EXPECT_NEAR((l.cx + l.w / 2) * w, b.x + b.width, 1.0);
      EXPECT_NEAR((l.cy + l.h / 2) * h, b.y + b.height, 1.0);
    }
    expect_written_as_rendered(o, i, s.image);
  }
  EXPECT_GT(objects, 60);
  EXPECT_GT(occluded, 0) << "occlusion or border clipping should occur in 30 images";
  EXPECT_GT(dropped, 0) << "some shapes should be too hidden or too small in 30 images";
  EXPECT_EQ(classes.size(), static_cast<size_t>(o.num_classes)) << "every class drawn";
}

TEST_F(SynthTest, LabelsAreTightBoxesOfVisiblePixels) {
  SynthOptions o = small("shapes5");
  o.train_images = 30;
  o.val_images = 0;
  expect_labels_match_pixels(o, true);
  // All ten shapes (hexagon and semicircle included), written as lossless PNG.
  o.dir = root_ / "shapes10_png";
  o.num_classes = 10;
  o.image_format = yolo::synth::ImageFormat::kPng;
  expect_labels_match_pixels(o, true);
  o.dir = root_ / "colours10";
  o.cue = yolo::synth::ClassCue::kColour;
  o.image_format = yolo::synth::ImageFormat::kJpeg;
  expect_labels_match_pixels(o, false);
}

// cue=colour: the class is the colour. On flat fills (clutter=false) every object of a class
// has nearly the same colour (within the ±12 jitter per channel) and the classes lie far apart;
// the shapes vary within a class, so shape says nothing about it. data.yaml names the colours.
TEST_F(SynthTest, ColourClassesAreColoursInAnyShape) {
  SynthOptions o = small("colours");
  o.cue = yolo::synth::ClassCue::kColour;
  o.num_classes = 10;
  o.clutter = false;
  o.train_images = 40;
  std::map<int, std::vector<cv::Vec3d>> colours;  // class -> mean BGR of each object
  std::map<int, std::set<double>> fill_ratios;    // class -> visible area / box area
  for (int i = 0; i < o.train_images; ++i) {
    const SynthImage s = yolo::synth::render_synthetic_image(o, SynthSplit::kTrain, i);
    for (const auto& obj : s.objects) {
      const cv::Scalar m = cv::mean(s.image, obj.visible_mask);
      colours[obj.class_id].push_back({m[0], m[1], m[2]});
      if (obj.visibility > 0.999)  // unoccluded: the ratio tells the shape apart
        fill_ratios[obj.class_id].insert(cv::countNonZero(obj.visible_mask) /
                                         static_cast<double>(obj.box.area()));
    }
  }
  ASSERT_EQ(colours.size(), 10u) << "every colour class drawn";
  double widest_class = 0, closest_classes = 1e9;
  for (const auto& [c, list] : colours) {
    for (const auto& a : list)
      for (const auto& b : list) widest_class = std::max(widest_class, cv::norm(a - b));
    for (const auto& [d, other] : colours) {
      if (d <= c) continue;
      for (const auto& a : list)
        for (const auto& b : other) closest_classes = std::min(closest_classes, cv::norm(a - b));
    }
  }
  EXPECT_LE(widest_class, 2 * 12 * std::sqrt(3.0) + 1);
  EXPECT_GE(closest_classes, 55.0);
  size_t varied = 0;
  for (const auto& [c, ratios] : fill_ratios) {
    const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
    if (ratios.size() >= 3 && *hi - *lo > 0.2) ++varied;
  }
  EXPECT_GE(varied, 3u) << "objects of one colour class come in different shapes";

  const auto report = yolo::synth::generate_synthetic_dataset(o);
  const YAML::Node yaml = YAML::LoadFile(report.yaml.string());
  EXPECT_EQ(yaml["names"][0].as<std::string>(), "red");
  EXPECT_EQ(yaml["names"][9].as<std::string>(), "black");
}

// Same seed: identical files whatever the thread count; another seed: different data.
// clutter=false: every background pixel is one colour and every shape is flat; the default
// set has textured backgrounds and noisy shapes.
TEST_F(SynthTest, ClutterFalseDrawsFlatColoursOnly) {
  auto colours_where = [](const cv::Mat& image, const cv::Mat& mask) {
    std::set<uint32_t> seen;
    for (int y = 0; y < image.rows; ++y)
      for (int x = 0; x < image.cols; ++x)
        if (mask.at<uint8_t>(y, x)) {
          const auto p = image.at<cv::Vec3b>(y, x);
          seen.insert(static_cast<uint32_t>(p[0]) << 16 | static_cast<uint32_t>(p[1]) << 8 | p[2]);
        }
    return seen.size();
  };
  SynthOptions flat = small("flat");
  flat.clutter = false;
  SynthOptions busy = small("busy");
  int shapes = 0;
  for (int i = 0; i < 6; ++i) {
    const SynthImage f = yolo::synth::render_synthetic_image(flat, SynthSplit::kTrain, i);
    cv::Mat background = cv::Mat(f.image.size(), CV_8UC1, cv::Scalar(255));
    for (const auto& obj : f.objects) {
      ++shapes;
      background.setTo(0, obj.visible_mask);
      EXPECT_EQ(colours_where(f.image, obj.visible_mask), 1u) << "image " << i;
    }
    EXPECT_EQ(colours_where(f.image, background), 1u) << "image " << i;

    const SynthImage b = yolo::synth::render_synthetic_image(busy, SynthSplit::kTrain, i);
    const cv::Mat everywhere(b.image.size(), CV_8UC1, cv::Scalar(255));
    EXPECT_GT(colours_where(b.background, everywhere), 100u) << "image " << i;
  }
  EXPECT_GT(shapes, 0);
}

TEST_F(SynthTest, DeterministicForSeedAndThreadCount) {
  SynthOptions a = small("a");
  a.threads = 1;
  SynthOptions b = small("b");
  b.threads = 3;
  SynthOptions c = small("c");
  c.seed = 8;
  yolo::synth::generate_synthetic_dataset(a);
  yolo::synth::generate_synthetic_dataset(b);
  yolo::synth::generate_synthetic_dataset(c);

  bool any_differs = false;
  for (const std::string split : {"train", "val"}) {
    for (const auto& label : files_in(a.dir / "labels" / split, ".txt")) {
      const fs::path rel = fs::path("labels") / split / label.filename();
      EXPECT_EQ(read_text(a.dir / rel), read_text(b.dir / rel)) << rel;
      if (read_text(a.dir / rel) != read_text(c.dir / rel)) any_differs = true;
      const fs::path img = fs::path("images") / split / (label.stem().string() + ".jpg");
      EXPECT_EQ(read_text(a.dir / img), read_text(b.dir / img)) << img;
    }
  }
  EXPECT_TRUE(any_differs) << "seed 8 gave the same labels as seed 7";
  EXPECT_EQ(read_text(a.dir / "data.yaml"), read_text(b.dir / "data.yaml"));
}

// A smaller second run into the same folder leaves no stale images or labels behind.
TEST_F(SynthTest, RerunRemovesStaleFiles) {
  SynthOptions o = small("ds");
  yolo::synth::generate_synthetic_dataset(o);
  fs::create_directories(o.dir / "labels");
  std::ofstream(o.dir / "labels" / "train.cache") << "stale";  // Ultralytics'
  std::ofstream(o.dir / "labels" / "train.yolo-edge.cache") << "stale";
  std::ofstream(o.dir / "images" / "train" / "mine.jpg") << "not ours";
  o.train_images = 5;
  o.val_images = 2;
  yolo::synth::generate_synthetic_dataset(o);
  EXPECT_EQ(files_in(o.dir / "labels" / "train", ".txt").size(), 5u);
  EXPECT_EQ(files_in(o.dir / "images" / "train", ".jpg").size(), 6u);  // 5 + the user's file
  EXPECT_TRUE(fs::exists(o.dir / "images" / "train" / "mine.jpg"));
  EXPECT_EQ(files_in(o.dir / "images" / "val", ".jpg").size(), 2u);
  EXPECT_FALSE(fs::exists(o.dir / "labels" / "train.cache"));
  EXPECT_FALSE(fs::exists(o.dir / "labels" / "train.yolo-edge.cache"));
  // The same set again as PNG: the JPEGs go (a folder holding both would give the trainers
  // every image twice), the user's file stays.
  o.image_format = yolo::synth::ImageFormat::kPng;
  yolo::synth::generate_synthetic_dataset(o);
  EXPECT_EQ(files_in(o.dir / "images" / "train", ".png").size(), 5u);
  EXPECT_EQ(files_in(o.dir / "images" / "train", ".jpg").size(), 1u);
  EXPECT_EQ(files_in(o.dir / "images" / "val", ".jpg").size(), 0u);
}

// background_fraction=1 gives only empty label files (background-only images).
TEST_F(SynthTest, BackgroundOnlyImagesHaveEmptyLabels) {
  SynthOptions o = small("ds");
  o.background_fraction = 1.0;
  const auto report = yolo::synth::generate_synthetic_dataset(o);
  EXPECT_EQ(report.instances, 0);
  EXPECT_EQ(report.background_images, 16);
  for (const auto& label : files_in(o.dir / "labels" / "train", ".txt")) {
    EXPECT_TRUE(read_text(label).empty()) << label;
  }
}

// The video decodes with the expected size and frame count, and its ground truth has one line
// per frame with boxes inside the frame.
TEST_F(SynthTest, VideoAndGroundTruth) {
  if (const std::string why = yolo::synth::synthetic_video_unavailable_reason(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  SynthOptions o = small("ds");
  o.train_images = 1;
  o.val_images = 1;
  o.imgsz = 192;
  o.video = true;
  o.video_frames = 20;
  o.video_fps = 10;
  o.video_objects = 4;
  const auto report = yolo::synth::generate_synthetic_dataset(o);
  ASSERT_EQ(report.video, o.dir / "video" / "synthetic.mp4");
  ASSERT_EQ(report.video_labels, o.dir / "video" / "synthetic.jsonl");
  ASSERT_TRUE(fs::exists(report.video));
  ASSERT_EQ(report.video_mot, o.dir / "video" / "gt" / "gt.txt");
  // Nothing but the finished files: the temporary names were renamed.
  EXPECT_EQ(std::distance(fs::directory_iterator(o.dir / "video"), fs::directory_iterator{}), 3);
  EXPECT_EQ(std::distance(fs::directory_iterator(o.dir / "video" / "gt"), fs::directory_iterator{}),
            1);

  cv::VideoCapture cap(report.video.string());
  ASSERT_TRUE(cap.isOpened()) << report.video;
  int frames = 0;
  cv::Mat frame;
  while (cap.read(frame)) {
    ASSERT_EQ(frame.cols, 192);
    ASSERT_EQ(frame.rows, 108);  // 192 * 9 / 16
    ++frames;
  }
  EXPECT_NEAR(frames, 20, 1);

  const auto lines = lines_of(read_text(report.video_labels));
  ASSERT_EQ(lines.size(), 20u);
  int boxes = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto j = nlohmann::json::parse(lines[i]);
    EXPECT_EQ(j.at("frame").get<int>(), static_cast<int>(i));
    EXPECT_NEAR(j.at("pts_ms").get<double>(), i * 100.0, 1e-6);
    for (const auto& obj : j.at("objects")) {
      ++boxes;
      const int cls = obj.at("class_id").get<int>();
      ASSERT_GE(cls, 0);
      ASSERT_LT(cls, o.num_classes);
      EXPECT_EQ(obj.at("class_name").get<std::string>(), yolo::synth::kShapeClassNames[cls]);
      const int x1 = obj.at("x1"), y1 = obj.at("y1"), x2 = obj.at("x2"), y2 = obj.at("y2");
      EXPECT_GE(x1, 0);
      EXPECT_GE(y1, 0);
      EXPECT_LE(x2, 192);
      EXPECT_LE(y2, 108);
      EXPECT_LT(x1, x2);
      EXPECT_LT(y1, y2);
      EXPECT_GT(obj.at("visibility").get<double>(), 0.0);
    }
  }
  EXPECT_GE(boxes, 20 * 3) << "4 shapes per frame, rarely one fully hidden";

  // The MOTChallenge ground truth holds the same boxes: frame + 1, track_id + 1, x, y, w, h.
  const auto mot = lines_of(read_text(report.video_mot));
  ASSERT_EQ(mot.size(), static_cast<size_t>(boxes));
  size_t row = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    for (const auto& obj : nlohmann::json::parse(lines[i]).at("objects")) {
      const int x1 = obj.at("x1"), y1 = obj.at("y1"), x2 = obj.at("x2"), y2 = obj.at("y2");
      const std::string want =
          std::to_string(i + 1) + "," + std::to_string(obj.at("track_id").get<int>() + 1) + "," +
          std::to_string(x1) + "," + std::to_string(y1) + "," + std::to_string(x2 - x1) + "," +
          std::to_string(y2 - y1) + ",1,-1,-1,-1";
      EXPECT_EQ(mot.at(row++), want);
    }
  }

  // Shapes move: the first object's box is not the same in the first and last frame.
  const auto first = nlohmann::json::parse(lines.front()).at("objects");
  const auto last = nlohmann::json::parse(lines.back()).at("objects");
  ASSERT_FALSE(first.empty());
  ASSERT_FALSE(last.empty());
  EXPECT_NE(first[0].dump(), last[0].dump());
}

// Shapes leave through the side edges and come back under the same identity, some after a blink
// and some after longer than a tracker's default 30-frame memory: the cases a tracking benchmark
// must hold. A shape crossing an edge is boxed by its visible part.
TEST_F(SynthTest, VideoShapesLeaveAndComeBack) {
  if (const std::string why = yolo::synth::synthetic_video_unavailable_reason(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  SynthOptions o = small("ds");
  o.train_images = 1;
  o.val_images = 1;
  o.imgsz = 128;
  o.video = true;
  o.video_frames = 600;
  o.video_fps = 30;
  o.video_objects = 6;
  const auto report = yolo::synth::generate_synthetic_dataset(o);
  const auto lines = lines_of(read_text(report.video_labels));
  ASSERT_EQ(lines.size(), 600u);
  std::map<int, std::vector<int>> frames_of;  // identity -> frames where it is seen
  int edge_boxes = 0;
  for (const auto& line : lines) {
    const auto j = nlohmann::json::parse(line);
    for (const auto& obj : j.at("objects")) {
      frames_of[obj.at("track_id").get<int>()].push_back(j.at("frame").get<int>());
      const int x1 = obj.at("x1"), x2 = obj.at("x2");
      ASSERT_GE(x1, 0);
      ASSERT_LE(x2, 128);
      edge_boxes += x1 == 0 || x2 == 128;
    }
  }
  EXPECT_EQ(frames_of.size(), 6u);
  int short_absences = 0, long_absences = 0;
  for (const auto& [id, frames] : frames_of) {
    for (size_t k = 1; k < frames.size(); ++k) {
      const int gap = frames[k] - frames[k - 1] - 1;
      if (gap > 30) {
        ++long_absences;
      } else if (gap > 0) {
        ++short_absences;
      }
    }
  }
  // Short gaps also come from occlusion; long ones only from leaving.
  EXPECT_GE(long_absences, 1);
  EXPECT_GE(short_absences + long_absences, 3);
  EXPECT_GE(edge_boxes, 20) << "shapes crossing a side edge show a clipped box";
}

// Invalid options fail before anything is written, with a message naming the key.
TEST_F(SynthTest, RejectsBadOptions) {
  auto expect_invalid = [&](SynthOptions o, const std::string& needle) {
    try {
      yolo::synth::generate_synthetic_dataset(o);
      ADD_FAILURE() << "no error for " << needle;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
    EXPECT_THROW(yolo::synth::generate_synthetic_video(o, root_ / "v.mp4", root_ / "v.jsonl"),
                 std::invalid_argument);
    EXPECT_FALSE(fs::exists(o.dir));
  };
  SynthOptions o = small("ds");
  o.num_classes = 0;
  expect_invalid(o, "nc=0");
  o.num_classes = 11;
  expect_invalid(o, "nc=11");
  o = small("ds");
  o.imgsz = 31;
  expect_invalid(o, "imgsz=31");
  o = small("ds");
  o.train_images = -1;
  expect_invalid(o, "train_images=-1");
  o = small("ds");
  o.dir.clear();
  try {
    yolo::synth::generate_synthetic_dataset(o);
    ADD_FAILURE() << "no error for an empty dir";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("dir"), std::string::npos) << e.what();
  }
}

}  // namespace
