// Datasets: YAML variants, label checking (every bad-label case), corrupt images, the summary
// and the label cache.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <opencv2/imgcodecs.hpp>
#include <thread>

#include "test_files.h"
#include "yolo/trainer/data/dataset.h"

namespace fs = std::filesystem;
using yolo::DatasetError;
using yolo::parse_label_text;

namespace {

using yolo::testing::TempDir;

void write(const fs::path& p, const std::string& text) {
  yolo::testing::write_file(p, text);
}

void write_image(const fs::path& p, int w = 32, int h = 24) {
  fs::create_directories(p.parent_path());
  cv::imwrite(p.string(), cv::Mat(h, w, CV_8UC3, cv::Scalar(40, 80, 120)));
}

std::string dataset_error(const fs::path& yaml, const fs::path& datasets_dir = "datasets") {
  try {
    yolo::load_dataset_config(yaml, datasets_dir);
  } catch (const DatasetError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(DatasetYaml, FolderSplitsAndNamesList) {
  TempDir d("yaml1");
  write(d.path / "data.yaml", "path: .\ntrain: images/train\nval: images/val\nnames: [cat, dog]\n");
  auto cfg = yolo::load_dataset_config(d.path / "data.yaml");
  EXPECT_EQ(cfg.nc, 2);
  EXPECT_EQ(cfg.names.at(1), "dog");
  EXPECT_EQ(cfg.root, d.path.lexically_normal());
  EXPECT_EQ(cfg.splits.at("train").at(0), (d.path / "images/train").lexically_normal());
  EXPECT_FALSE(cfg.splits.count("test"));
}

TEST(DatasetYaml, NamesMapNcAndValidation) {
  TempDir d("yaml2");
  write(d.path / "a.yaml", "train: t\nvalidation: v\nnames: {0: a, 1: b, 2: c}\nnc: 3\n");
  auto cfg = yolo::load_dataset_config(d.path / "a.yaml");
  EXPECT_EQ(cfg.nc, 3);
  EXPECT_EQ(cfg.names.at(2), "c");
  EXPECT_EQ(cfg.splits.at("val").at(0), d.path / "v");
  write(d.path / "b.yaml", "train: t\nval: v\nnc: 2\n");
  EXPECT_EQ(yolo::load_dataset_config(d.path / "b.yaml").names.at(1), "class1");
}

TEST(DatasetYaml, ListsOfSourcesAndDatasetsDir) {
  TempDir d("yaml3");
  fs::create_directories(d.path / "store" / "mydata");
  write(d.path / "cfg" / "x.yaml", "path: mydata\ntrain: [a, b]\nval: v.txt\nnames: [x]\n");
  auto cfg = yolo::load_dataset_config(d.path / "cfg" / "x.yaml", d.path / "store");
  EXPECT_EQ(cfg.root, (d.path / "store" / "mydata").lexically_normal());
  EXPECT_EQ(cfg.splits.at("train").size(), 2u);
  EXPECT_EQ(cfg.splits.at("val").at(0).filename(), "v.txt");
}

TEST(DatasetYaml, Errors) {
  TempDir d("yaml4");
  EXPECT_NE(dataset_error(d.path / "none.yaml").find("does not exist"), std::string::npos);
  write(d.path / "a.yaml", "val: v\nnames: [a]\n");
  EXPECT_NE(dataset_error(d.path / "a.yaml").find("no 'train' key"), std::string::npos);
  write(d.path / "b.yaml", "train: t\nval: v\nnames: [a, b]\nnc: 3\n");
  EXPECT_NE(dataset_error(d.path / "b.yaml").find("nc is 3 but names lists 2"), std::string::npos);
  write(d.path / "c.yaml", "train: t\nval: v\n");
  EXPECT_NE(dataset_error(d.path / "c.yaml").find("neither names nor nc"), std::string::npos);
  write(d.path / "d.yaml", "train: [t\n");
  EXPECT_NE(dataset_error(d.path / "d.yaml").find("not valid YAML"), std::string::npos);
  write(d.path / "e.yaml", "train: t\nval: v\nnames: {0: a, 2: c}\n");
  EXPECT_NE(dataset_error(d.path / "e.yaml").find("class 1 is missing"), std::string::npos);
  // Numbers yaml-cpp cannot convert: named with the key and the range, not "bad conversion".
  write(d.path / "f.yaml", "train: t\nval: v\nnc: 99999999999999999999999\n");
  std::string e = dataset_error(d.path / "f.yaml");
  EXPECT_NE(e.find("nc must be a whole number from 1 to 100000 (it is '99999999999999999999999')"),
            std::string::npos)
      << e;
  write(d.path / "g.yaml", "train: t\nval: v\nnames: {0: a, three: b}\n");
  e = dataset_error(d.path / "g.yaml");
  EXPECT_NE(e.find("a class id in names must be a whole number"), std::string::npos) << e;
  write(d.path / "h.yaml", "train: t\nval: v\nnames: [a]\nchannels: [3]\n");
  e = dataset_error(d.path / "h.yaml");
  EXPECT_NE(e.find("channels must be a whole number from 1 to 64 (it is a list or mapping)"),
            std::string::npos)
      << e;
  // Class names from a Latin-1 editor: refused at the byte itself (names go into checkpoints).
  write(d.path / "i.yaml", "train: t\nval: v\nnames: [caf\xE9, b]\n");
  e = dataset_error(d.path / "i.yaml");
  EXPECT_NE(e.find("is not UTF-8 text: byte 0xE9 at line 3, column 12 (offset 27)"),
            std::string::npos)
      << e;
  // As a Windows editor saves it (#57): a byte-order mark and CRLF line ends are read.
  write(d.path / "windows.yaml", "\xEF\xBB\xBFtrain: t\r\nval: v\r\nnames: [a, b]\r\n");
  EXPECT_EQ(yolo::load_dataset_config(d.path / "windows.yaml", d.path).nc, 2);
  // A dataset folder instead of its YAML (libstdc++ would say "Is a directory" mid-read).
  fs::create_directories(d.path / "set");
  write(d.path / "set" / "data.yaml", "train: t\nval: v\nnames: [a]\n");
  const std::string folder = dataset_error(d.path / "set");
  EXPECT_EQ(folder.find("bad conversion"), std::string::npos);
  EXPECT_NE(folder.find("is a folder; give its dataset YAML, e.g. data="), std::string::npos)
      << folder;
}

TEST(DatasetFiles, ListImagesFromFoldersTxtAndFiles) {
  TempDir d("files");
  write_image(d.path / "images/train/a.jpg");
  write_image(d.path / "images/train/sub/b.PNG");
  write(d.path / "images/train/notes.md", "x");
  write_image(d.path / "other/c.jpg");
  write(d.path / "list.txt", "./other/c.jpg\nimages/train/a.jpg\n\n");
  auto from_dir = yolo::list_images({d.path / "images/train"});
  ASSERT_EQ(from_dir.size(), 2u);
  auto from_txt = yolo::list_images({d.path / "list.txt"});
  ASSERT_EQ(from_txt.size(), 2u);
  EXPECT_EQ(from_txt[1], (d.path / "other/c.jpg").lexically_normal());
  EXPECT_EQ(yolo::list_images({d.path / "images/train", d.path / "list.txt"}).size(), 3u);
  EXPECT_THROW(yolo::list_images({d.path / "missing"}), DatasetError);
  // As a Windows editor saves a list: a byte-order mark and CRLF line ends (#57); a list that is
  // not UTF-8 names the byte.
  write(d.path / "windows.txt", "\xEF\xBB\xBF./other/c.jpg\r\nimages/train/a.jpg\r\n");
  EXPECT_EQ(yolo::list_images({d.path / "windows.txt"}), from_txt);
  write(d.path / "latin1.txt", "images/train/caf\xE9.jpg\n");
  try {
    yolo::list_images({d.path / "latin1.txt"});
    ADD_FAILURE() << "a list that is not UTF-8 was read";
  } catch (const DatasetError& e) {
    EXPECT_NE(std::string(e.what()).find("image list '" + (d.path / "latin1.txt").string() +
                                         "' is not UTF-8 text: byte 0xE9 at line 1, column 17"),
              std::string::npos)
        << e.what();
  }
}

TEST(DatasetFiles, LabelPathRule) {
  EXPECT_EQ(yolo::label_path_for("/d/images/train/x.jpg"), fs::path("/d/labels/train/x.txt"));
  // Only the last "images" component changes.
  EXPECT_EQ(yolo::label_path_for("/images/d/images/a.b.png"), fs::path("/images/d/labels/a.b.txt"));
  EXPECT_EQ(yolo::label_path_for("/d/pics/x.jpg"), fs::path("/d/pics/x.txt"));
}

TEST(Labels, ValidBoxesPolygonsAndDuplicates) {
  auto r = parse_label_text("0 0.5 0.5 0.2 0.4\n\n1 0.1 0.1 0.2 0.2\n0 0.5 0.5 0.2 0.4\n", 2);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.boxes.size(), 2u);
  EXPECT_EQ(r.duplicates_removed, 1);
  // Clipped to the image: 0.1 +- 0.1 -> [0, 0.2].
  EXPECT_FLOAT_EQ(r.boxes[1].cx, 0.1f);
  // A polygon becomes its bounding box.
  r = parse_label_text("1 0.1 0.2 0.5 0.2 0.5 0.6 0.1 0.6\n", 2);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.polygons, 1);
  EXPECT_NEAR(r.boxes[0].cx, 0.3, 1e-6);
  EXPECT_NEAR(r.boxes[0].cy, 0.4, 1e-6);
  EXPECT_NEAR(r.boxes[0].w, 0.4, 1e-6);
  EXPECT_NEAR(r.boxes[0].h, 0.4, 1e-6);
  // Slightly outside [0, 1] is tolerated and clipped.
  r = parse_label_text("0 1.005 0.5 0.01 0.1\n", 1);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(parse_label_text("", 1).boxes.empty());
}

TEST(Labels, EveryBadCaseNamesTheLine) {
  struct Case {
    const char* text;
    const char* reason;
    int line;
  };
  for (const Case& c :
       {Case{"0 0.5 0.5 0.1 0.1\n3 0.5 0.5 0.1 0.1\n", "exceeds the dataset's class count", 2},
        Case{"0 0.5 1.2 0.1 0.1\n", "outside [0, 1]", 1},
        Case{"0 -0.5 0.5 0.1 0.1\n", "outside [0, 1]", 1}, Case{"0 0.5 0.5 0.1\n", "4 columns", 1},
        Case{"0 0.5 0.5 0.1 0.1 0.9\n", "6 columns", 1},
        Case{"0 0.5 0.5 0.1 0.1 0.2 0.2 0.3\n", "polygon needs", 1},
        Case{"\n0 0.5 abc 0.1 0.1\n", "'abc' is not a number", 2},
        Case{"0 nan 0.5 0.1 0.1\n", "not a finite number", 1},
        Case{"-1 0.5 0.5 0.1 0.1\n", "not a non-negative integer", 1},
        Case{"1.5 0.5 0.5 0.1 0.1\n", "not a non-negative integer", 1},
        // Beyond int: refused without converting it (undefined behaviour; found by fuzzing).
        Case{"111111111111111111111111 0.5 0.5 0.1 0.1\n", "exceeds the dataset's class count",
             1}}) {
    auto r = parse_label_text(c.text, 3);
    EXPECT_NE(r.error.find(c.reason), std::string::npos) << c.text << " -> " << r.error;
    ASSERT_TRUE(r.error_line.has_value()) << c.text;
    EXPECT_EQ(*r.error_line, c.line) << c.text;
    EXPECT_TRUE(r.boxes.empty());
  }
}

TEST(DatasetScan, SkipsBadFilesAndSummarises) {
  TempDir d("scan");
  const fs::path img = d.path / "images" / "train";
  const fs::path lbl = d.path / "labels" / "train";
  write_image(img / "good.jpg");
  write(lbl / "good.txt", "0 0.5 0.5 0.2 0.2\n1 0.3 0.3 0.1 0.1\n");
  write_image(img / "background.jpg");  // no label file
  write_image(img / "empty_label.png");
  write(lbl / "empty_label.txt", "");
  write_image(img / "bad_label.jpg");
  write(lbl / "bad_label.txt", "0 0.5 0.5 0.2 0.2\n7 0.5 0.5 0.2 0.2\n");
  write_image(img / "tiny.png", 5, 5);
  write(img / "garbage.jpg", "this is not an image");
  write(img / "zero.png", "");
  // A JPEG cut short, as after an interrupted copy.
  write_image(img / "truncated_src.jpg", 64, 64);
  {
    std::ifstream in(img / "truncated_src.jpg", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    write(img / "truncated.jpg", bytes.substr(0, bytes.size() - 40));
    fs::remove(img / "truncated_src.jpg");
  }
  auto images = yolo::list_images({img});
  ASSERT_EQ(images.size(), 8u);
  auto s = yolo::scan_dataset(images, 2, 2);
  EXPECT_EQ(s.images.size(), 3u);
  EXPECT_EQ(s.backgrounds, 2);
  EXPECT_EQ(s.instances, 2);
  EXPECT_EQ(s.skipped.size(), 5u);
  std::string text = s.summary("train");
  EXPECT_NE(text.find("train: 3 images, 2 backgrounds, 5 skipped, 2 instances"), std::string::npos)
      << text;
  EXPECT_NE(text.find("bad_label.txt line 2: class 7 exceeds"), std::string::npos) << text;
  EXPECT_NE(text.find("truncated.jpg: corrupt JPEG"), std::string::npos) << text;
  EXPECT_NE(text.find("garbage.jpg: not an image: its first bytes match no image format"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("zero.png: empty file (0 bytes)"), std::string::npos) << text;
  EXPECT_NE(text.find("smaller than 10 pixels"), std::string::npos) << text;
  EXPECT_FALSE(s.from_cache);

  // The cache is reused while nothing changes...
  auto again = yolo::scan_dataset(images, 2, 1);
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ(again.images.size(), 3u);
  EXPECT_EQ(again.skipped.size(), 5u);
  EXPECT_TRUE(fs::exists(d.path / "labels" / "train.yolo-edge.cache"));
  EXPECT_FALSE(fs::exists(d.path / "labels" / "train.cache")) << "Ultralytics' name is theirs";
  // ...and rebuilt when a label changes.
  write(lbl / "bad_label.txt", "0 0.5 0.5 0.2 0.2\n");
  auto fixed = yolo::scan_dataset(images, 2, 2);
  EXPECT_FALSE(fixed.from_cache);
  EXPECT_EQ(fixed.images.size(), 4u);
  // A different class count invalidates it too.
  EXPECT_FALSE(yolo::scan_dataset(images, 3, 2).from_cache);
}

// A label line with bytes that are not UTF-8 (a Latin-1 editor, a binary file named .txt) skips
// its image with the byte named (value, line, column), and the cache is still written and
// reused: the message must be storable, not lose the scan for good. What Windows editors write,
// a byte-order mark and CRLF line ends, is read as any label file (#57).
TEST(DatasetScan, LabelsThatAreNotUtf8AreReportedAndCached) {
  TempDir d("scan_utf8");
  const fs::path img = d.path / "images" / "train";
  const fs::path lbl = d.path / "labels" / "train";
  write_image(img / "good.jpg");
  write(lbl / "good.txt", "0 0.5 0.5 0.2 0.2\n");
  write_image(img / "latin1.jpg");
  write(lbl / "latin1.txt", "0 0.5 0.5 0.2 0.2\n0 0.5 0.5 0.2 0.2 caf\xE9\n");
  write_image(img / "windows.jpg");
  write(lbl / "windows.txt",
        "\xEF\xBB\xBF"
        "0 0.5 0.5 0.2 0.2\r\n0 0.2 0.2 0.1 0.1\r\n");
  const auto images = yolo::list_images({img});
  const auto s = yolo::scan_dataset(images, 1, 1);
  EXPECT_EQ(s.instances, 3) << "good.txt's box and windows.txt's two";
  ASSERT_EQ(s.skipped.size(), 1u);
  EXPECT_NE(s.skipped[0].reason.find("latin1.txt is not UTF-8 text: byte 0xE9 at line 2, column "
                                     "22 (offset 39); save it as UTF-8"),
            std::string::npos)
      << s.skipped[0].reason;
  EXPECT_TRUE(fs::exists(d.path / "labels" / "train.yolo-edge.cache"));
  const auto again = yolo::scan_dataset(images, 1, 1);
  EXPECT_TRUE(again.from_cache);
  ASSERT_EQ(again.skipped.size(), 1u);
  EXPECT_EQ(again.skipped[0].reason, s.skipped[0].reason);

  // A file name that is not UTF-8 is scanned like any other; only the cache is not written
  // (JSON cannot hold the name), so the next scan checks again instead of reading a wrong path.
  TempDir named("scan_utf8_name");
  write_image(named.path / "images" / "train" / "b\xFF.jpg");
  write(named.path / "labels" / "train" / "b\xFF.txt", "0 0.5 0.5 0.2 0.2\n");
  const auto odd = yolo::list_images({named.path / "images" / "train"});
  ASSERT_EQ(odd.size(), 1u);
  EXPECT_EQ(yolo::scan_dataset(odd, 1, 1).instances, 1);
  EXPECT_FALSE(fs::exists(named.path / "labels" / "train.yolo-edge.cache"));
  EXPECT_FALSE(yolo::scan_dataset(odd, 1, 1).from_cache);
}

TEST(DatasetScan, SummaryCapsTheList) {
  yolo::DatasetScan s;
  for (int i = 0; i < 15; ++i) s.skipped.push_back({fs::path("f" + std::to_string(i)), "bad"});
  std::string text = s.summary("val", 10);
  EXPECT_NE(text.find("... and 5 more"), std::string::npos);
}
