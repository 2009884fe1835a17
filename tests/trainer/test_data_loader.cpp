// The threaded loader: batch tensors and targets, determinism across worker counts, epochs,
// rect validation and training batches, fraction, the RAM and disk caches (.npy), mixup, cutmix
// and bgr.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "yolo/trainer/data/data_loader.h"
#include "yolo/trainer/data/npy_image.h"

namespace fs = std::filesystem;

namespace {

// 12 images of varied sizes, each with one or two filled boxes.
std::vector<yolo::ImageRecord> make_records(const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<yolo::ImageRecord> out;
  for (int i = 0; i < 12; ++i) {
    const int w = 80 + 16 * (i % 4), h = 60 + 20 * (i % 3);
    cv::Mat img(h, w, CV_8UC3, cv::Scalar(20 * i % 255, 60, 90));
    cv::Rect box(w / 4, h / 4, w / 3, h / 3);
    cv::rectangle(img, box, cv::Scalar::all(255), cv::FILLED);
    fs::path p = dir / ("img" + std::to_string(i) + ".png");
    cv::imwrite(p.string(), img);
    yolo::ImageRecord r{p, w, h, {}};
    r.boxes.push_back({i % 3, float(box.x + box.width / 2.0) / w,
                       float(box.y + box.height / 2.0) / h, float(box.width) / w,
                       float(box.height) / h});
    if (i % 2) r.boxes.push_back({1, 0.8f, 0.8f, 0.1f, 0.1f});
    out.push_back(r);
  }
  return out;
}

std::vector<yolo::Batch> epoch_batches(yolo::DataLoader& loader, int epoch) {
  loader.start_epoch(epoch);
  std::vector<yolo::Batch> out;
  while (auto b = loader.next()) out.push_back(std::move(*b));
  return out;
}

}  // namespace

TEST(DataLoader, TrainingBatchesHaveImagesAndTargets) {
  auto records = make_records(fs::temp_directory_path() / "yolo_loader_a");
  yolo::LoaderOptions o;
  o.imgsz = 64;
  o.batch = 5;
  o.workers = 2;
  yolo::DataLoader loader(records, o);
  EXPECT_EQ(loader.batches_per_epoch(), 3u);
  auto batches = epoch_batches(loader, 0);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0].images.sizes(), (std::vector<int64_t>{5, 3, 64, 64}));
  EXPECT_EQ(batches[2].images.size(0), 2);
  for (const auto& b : batches) {
    ASSERT_EQ(b.targets.dim(), 2);
    if (b.targets.size(0) == 0) continue;
    EXPECT_EQ(b.targets.size(1), 6);
    EXPECT_TRUE(torch::all(b.targets.select(1, 0) < b.images.size(0)).item<bool>());
    EXPECT_TRUE(torch::all(b.targets.slice(1, 2) >= 0).item<bool>());
    EXPECT_TRUE(torch::all(b.targets.slice(1, 2) <= 1.0001).item<bool>());
  }
  EXPECT_LE(batches[0].images.max().item<float>(), 1.0f);
}

TEST(DataLoader, SameSeedSameBatchesWhateverTheWorkers) {
  auto records = make_records(fs::temp_directory_path() / "yolo_loader_b");
  yolo::LoaderOptions o;
  o.imgsz = 64;
  o.batch = 4;
  o.seed = 7;
  o.workers = 1;
  yolo::DataLoader one(records, o);
  o.workers = 4;
  yolo::DataLoader four(records, o);
  for (int epoch : {0, 1}) {
    auto a = epoch_batches(one, epoch), b = epoch_batches(four, epoch);
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) {
      EXPECT_TRUE(torch::equal(a[k].images, b[k].images)) << "epoch " << epoch << " batch " << k;
      EXPECT_TRUE(torch::equal(a[k].targets, b[k].targets)) << "epoch " << epoch << " batch " << k;
      EXPECT_EQ(a[k].paths, b[k].paths);
    }
  }
  // Another epoch or another seed gives other batches.
  auto e0 = epoch_batches(one, 0), e1 = epoch_batches(one, 1);
  EXPECT_FALSE(torch::equal(e0[0].images, e1[0].images));
  o.seed = 8;
  o.workers = 2;
  yolo::DataLoader other(records, o);
  EXPECT_FALSE(torch::equal(epoch_batches(other, 0)[0].images, e0[0].images));
}

// The decoded-image buffer (Ultralytics' mosaic buffer) and the in-thread mode (workers=0, CPU
// training) only change where pixels come from and which thread makes them, never the batches:
// no buffer, a 3-image buffer that evicts all the time, the default one, 0 and 2 workers agree.
TEST(DataLoader, BufferAndInThreadLoadingGiveTheSameBatches) {
  auto records = make_records(fs::temp_directory_path() / "yolo_loader_buffer");
  yolo::LoaderOptions o;
  o.imgsz = 64;
  o.batch = 4;
  o.seed = 3;
  o.workers = 2;
  o.buffer = 0;
  yolo::DataLoader plain(records, o);
  o.buffer = 3;
  yolo::DataLoader small(records, o);
  o.buffer = -1;
  yolo::DataLoader full(records, o);
  o.workers = 0;
  yolo::DataLoader in_thread(records, o);
  for (int epoch : {0, 1, 2}) {
    const auto want = epoch_batches(plain, epoch);
    for (yolo::DataLoader* other : {&small, &full, &in_thread}) {
      const auto got = epoch_batches(*other, epoch);
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < want.size(); ++k) {
        EXPECT_TRUE(torch::equal(got[k].images, want[k].images))
            << "epoch " << epoch << " batch " << k;
        EXPECT_TRUE(torch::equal(got[k].targets, want[k].targets)) << "epoch " << epoch;
      }
    }
  }
}

TEST(DataLoader, RectValidationBatches) {
  auto records = make_records(fs::temp_directory_path() / "yolo_loader_c");
  yolo::LoaderOptions o;
  o.imgsz = 128;
  o.batch = 4;
  o.augment = false;
  o.shuffle = false;
  o.rect = true;
  yolo::DataLoader loader(records, o);
  auto batches = epoch_batches(loader, 0);
  ASSERT_EQ(batches.size(), 3u);
  for (size_t k = 0; k < batches.size(); ++k) {
    auto [h, w] = loader.batch_shape(k);
    EXPECT_EQ(batches[k].images.size(2), h);
    EXPECT_EQ(batches[k].images.size(3), w);
    EXPECT_EQ(h % 32, 0);
    EXPECT_EQ(w % 32, 0);
    EXPECT_EQ(batches[k].transforms.size(), static_cast<size_t>(batches[k].images.size(0)));
  }
  // Landscape images (h/w < 1) get batches shorter than they are wide.
  auto [h0, w0] = loader.batch_shape(0);
  EXPECT_LT(h0, w0);
  // Targets map through the transform: the first image's box centre, original -> batch pixels.
  const auto& b = batches[0];
  const auto& t = b.transforms[0];
  EXPECT_GT(t.gain_x, 0);
  EXPECT_EQ(b.source_sizes[0].first, t.src_height);
}

TEST(DataLoader, FractionCacheAndErrors) {
  auto records = make_records(fs::temp_directory_path() / "yolo_loader_d");
  yolo::LoaderOptions o;
  o.imgsz = 64;
  o.batch = 2;
  o.fraction = 0.5;
  o.cache_ram = true;
  yolo::DataLoader loader(records, o);
  EXPECT_EQ(loader.size(), 6u);
  auto first = epoch_batches(loader, 0);
  auto again = epoch_batches(loader, 0);  // served from the RAM cache
  EXPECT_TRUE(torch::equal(first[0].images, again[0].images));
  EXPECT_THROW(yolo::DataLoader({}, o), std::invalid_argument);
  yolo::DataLoader not_started(records, o);
  EXPECT_THROW(not_started.next(), std::logic_error);
  yolo::LoaderOptions rect_ddp = o;
  rect_ddp.rect = true;
  rect_ddp.world = 2;
  EXPECT_THROW(yolo::DataLoader(records, rect_ddp), std::invalid_argument);
  // A file removed after the check is an error from next(), not a crash.
  fs::remove(records[3].image);
  o.cache_ram = false;
  o.fraction = 1.0;
  o.workers = 2;
  yolo::DataLoader broken(records, o);
  broken.start_epoch(0);
  EXPECT_THROW(
      {
        while (broken.next()) {
        }
      },
      std::runtime_error);
}

namespace {

// A mix transform at probability 1 (mixup or cutmix, set by `turn_on`) takes a second augmented
// sample into every training image: each sample carries at least the boxes it has without, more
// in total; closing mosaic turns the transform off too.
void expect_second_sample_boxes_until_mosaic_closes(
    const std::string& name, const std::function<void(yolo::AugmentParams&)>& turn_on) {
  auto records = make_records(fs::temp_directory_path() / ("yolo_loader_" + name));
  yolo::LoaderOptions o;
  o.imgsz = 64;
  o.batch = 4;
  o.workers = 1;
  yolo::DataLoader plain(records, o);
  turn_on(o.hyp);
  yolo::DataLoader mixed(records, o);
  int64_t plain_boxes = 0, mixed_boxes = 0;
  for (size_t pos = 0; pos < records.size(); ++pos) {
    const auto a = plain.make_sample(pos, 0), b = mixed.make_sample(pos, 0);
    EXPECT_GE(b.boxes.size(), a.boxes.size()) << name << ", position " << pos;
    plain_boxes += static_cast<int64_t>(a.boxes.size());
    mixed_boxes += static_cast<int64_t>(b.boxes.size());
  }
  EXPECT_GT(mixed_boxes, plain_boxes) << name;

  mixed.set_mosaic(false);
  plain.set_mosaic(false);
  mixed.start_epoch(1);
  plain.start_epoch(1);
  auto mb = mixed.next(), pb = plain.next();
  ASSERT_TRUE(mb && pb);
  EXPECT_TRUE(torch::equal(mb->images, pb->images)) << name << " must be off once mosaic closes";
  EXPECT_TRUE(torch::equal(mb->targets, pb->targets)) << name;
}

}  // namespace

TEST(DataLoader, MixupAddsTheSecondSamplesBoxesUntilMosaicCloses) {
  expect_second_sample_boxes_until_mosaic_closes("mixup",
                                                 [](yolo::AugmentParams& h) { h.mixup = 1.0; });
}

TEST(DataLoader, CutmixAddsBoxesOfTheSecondSampleUntilMosaicCloses) {
  expect_second_sample_boxes_until_mosaic_closes("cutmix",
                                                 [](yolo::AugmentParams& h) { h.cutmix = 1.0; });
}

// bgr=1 feeds every training image as BGR: the same batch with its channels reversed. The draw
// comes last, so nothing else about the samples changes.
TEST(DataLoader, BgrReversesTheChannelsAndNothingElse) {
  auto records = make_records(fs::temp_directory_path() / "yolo_loader_bgr");
  yolo::LoaderOptions o;
  o.imgsz = 64;
  o.batch = 4;
  o.workers = 1;
  yolo::DataLoader rgb(records, o);
  o.hyp.bgr = 1.0;
  yolo::DataLoader bgr(records, o);
  const auto a = epoch_batches(rgb, 0), b = epoch_batches(bgr, 0);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(torch::equal(a[i].images.flip(1), b[i].images)) << "batch " << i;
    EXPECT_TRUE(torch::equal(a[i].targets, b[i].targets)) << "batch " << i;
  }
  // bgr=0.5: each image is drawn on its own, so an epoch mixes swapped and unswapped ones.
  o.hyp.bgr = 0.5;
  yolo::DataLoader half(records, o);
  const auto c = epoch_batches(half, 0);
  int swapped = 0, kept = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    for (int64_t j = 0; j < a[i].images.size(0); ++j) {
      swapped += torch::equal(a[i].images[j].flip(0), c[i].images[j]);
      kept += torch::equal(a[i].images[j], c[i].images[j]);
    }
  }
  EXPECT_GT(swapped, 0);
  EXPECT_GT(kept, 0);
  EXPECT_EQ(swapped + kept, static_cast<int>(records.size()));
}

// Rect training: batches keep their aspect-ratio shape and order every epoch. With the random
// geometry and colour off, a training batch is validation's letterbox at pad 0 but for the
// centring: the random perspective centres each image exactly, as Ultralytics 8.4 does, where the
// letterbox rounds its margins to whole pixels, so an odd margin moves the image half a pixel.
TEST(DataLoader, RectTrainingKeepsTheBatchShapesAndOrder) {
  auto records = make_records(fs::temp_directory_path() / "yolo_loader_rect_train");
  yolo::LoaderOptions o;
  o.imgsz = 128;
  o.batch = 5;  // 12 images: batches of 5, 5 and 2
  o.workers = 1;
  o.rect = true;
  o.rect_pad = 0.0;  // shuffle stays at its default: rect mode must not shuffle anyway
  yolo::DataLoader train(records, o);
  const auto e0 = epoch_batches(train, 0), e1 = epoch_batches(train, 1);
  ASSERT_EQ(e0.size(), 3u);
  EXPECT_EQ(e0.back().images.size(0), 2);
  bool some_not_square = false;
  for (size_t k = 0; k < e0.size(); ++k) {
    auto [h, w] = train.batch_shape(k);
    EXPECT_EQ(e0[k].images.size(2), h);
    EXPECT_EQ(e0[k].images.size(3), w);
    some_not_square = some_not_square || h != w;
    EXPECT_EQ(e0[k].paths, e1[k].paths) << "rect batches are not shuffled";
    EXPECT_FALSE(torch::equal(e0[k].images, e1[k].images)) << "but augmented anew each epoch";
    EXPECT_GT(e0[k].targets.size(0), 0);
  }
  EXPECT_TRUE(some_not_square);

  o.hyp = yolo::AugmentParams{};
  o.hyp.hsv_h = o.hyp.hsv_s = o.hyp.hsv_v = 0;
  o.hyp.translate = o.hyp.scale = 0;
  o.hyp.fliplr = 0;
  yolo::DataLoader still(records, o);
  o.augment = false;
  yolo::DataLoader val(records, o);
  const auto a = epoch_batches(still, 0), b = epoch_batches(val, 0);
  ASSERT_EQ(a.size(), b.size());
  int identical = 0, shifted = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    ASSERT_EQ(a[k].images.sizes(), b[k].images.sizes()) << "batch " << k;
    ASSERT_EQ(a[k].targets.sizes(), b[k].targets.sizes()) << "batch " << k;
    const auto& ta = a[k].targets;
    const auto& tb = b[k].targets;
    const double w = static_cast<double>(a[k].images.size(3)), h = a[k].images.size(2);
    // Same image, class and box size; centres at most half a pixel apart.
    EXPECT_TRUE(torch::equal(ta.slice(1, 0, 2), tb.slice(1, 0, 2))) << "batch " << k;
    EXPECT_TRUE(torch::allclose(ta.slice(1, 4, 6), tb.slice(1, 4, 6), 0, 1e-5)) << "batch " << k;
    EXPECT_LE((ta.select(1, 2) - tb.select(1, 2)).abs().max().item<double>() * w, 0.5 + 1e-3);
    EXPECT_LE((ta.select(1, 3) - tb.select(1, 3)).abs().max().item<double>() * h, 0.5 + 1e-3);
    for (int64_t i = 0; i < a[k].images.size(0); ++i) {
      const bool same = torch::equal(a[k].images[i], b[k].images[i]);
      identical += same;
      shifted += !same;
    }
  }
  EXPECT_GT(identical, 0) << "images with even margins are the letterbox's exactly";
  EXPECT_GT(shifted, 0) << "the set should have odd margins too";
}

namespace {

std::string python_with_numpy() {
  const std::string python = YOLO_TEST_PYTHON;  // the project venv's (tools/install-deps.sh)
  if (std::system((python + " -c 'import numpy' >/dev/null 2>&1").c_str()) != 0) return "";
  return python;
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Bytes of an .npy 1.0 file with the given header dict and `data_bytes` bytes of 1s.
std::string npy_with_header(const std::string& dict, size_t data_bytes) {
  std::string h = dict;
  h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
  h.push_back('\n');
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  return out + h + std::string(data_bytes, '\x01');
}

}  // namespace

// The .npy cache format: our files round-trip; anything that is not an H x W x 3 uint8 C-order
// array is refused with the file's name and whether it is a truncated image or something else.
TEST(NpyImage, RoundTripsAndRefusesOtherArrays) {
  const fs::path dir = fs::temp_directory_path() / "yolo_npy";
  fs::remove_all(dir);
  fs::create_directories(dir);
  cv::Mat img(7, 5, CV_8UC3);
  cv::randu(img, cv::Scalar::all(0), cv::Scalar::all(256));
  const std::string bytes = yolo::encode_npy_image(img);
  const size_t header_end = bytes.find('\n') + 1;
  EXPECT_EQ(header_end % 64, 0u) << "numpy aligns the data to 64 bytes";
  EXPECT_EQ(bytes.size() - header_end, img.total() * 3);
  write_bytes(dir / "ours.npy", bytes);
  EXPECT_EQ(cv::norm(yolo::read_npy_image(dir / "ours.npy"), img, cv::NORM_INF), 0);
  // A view with a row stride is written densely.
  cv::Mat view = cv::Mat(20, 20, CV_8UC3, cv::Scalar(1, 2, 3))(cv::Rect(2, 3, 5, 7));
  view.setTo(cv::Scalar(9, 8, 7));
  write_bytes(dir / "view.npy", yolo::encode_npy_image(view));
  EXPECT_EQ(cv::norm(yolo::read_npy_image(dir / "view.npy"), view, cv::NORM_INF), 0);

  using Kind = yolo::NpyError::Kind;
  auto refused = [&](const std::string& name, const std::string& content, Kind kind,
                     const std::string& why) {
    write_bytes(dir / name, content);
    try {
      yolo::read_npy_image(dir / name);
      ADD_FAILURE() << name << " was accepted";
    } catch (const yolo::NpyError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(name), std::string::npos) << what;
      EXPECT_NE(what.find(why), std::string::npos) << what;
      EXPECT_EQ(e.kind(), kind) << what;
    }
  };
  const std::string u8 = "{'descr': '|u1', 'fortran_order': False, 'shape': ";
  refused("truncated.npy", bytes.substr(0, bytes.size() - 10), Kind::kTruncated, "truncated data");
  refused("short_header.npy", bytes.substr(0, 20), Kind::kTruncated, "truncated header");
  refused("garbage.npy", "not an npy file at all", Kind::kNotAnImage, "magic");
  refused("f32.npy",
          npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (7, 5, 3), }", 420),
          Kind::kNotAnImage, "8-bit");
  refused("fortran.npy",
          npy_with_header("{'descr': '|u1', 'fortran_order': True, 'shape': (7, 5, 3), }", 105),
          Kind::kNotAnImage, "C order");
  refused("gray.npy", npy_with_header(u8 + "(7, 5), }", 35), Kind::kNotAnImage, "H x W x 3");
  refused("overflow.npy", npy_with_header(u8 + "(99999999999999999999, 5, 3), }", 10),
          Kind::kNotAnImage, "H x W x 3");
  refused("huge.npy", npy_with_header(u8 + "(65000, 65000, 3), }", 10), Kind::kTruncated,
          "12675000000 bytes expected");  // refused from the file size, before allocating
  refused("long_header.npy",
          npy_with_header(u8 + "(7, 5, 3), " + std::string(20000, ' ') + "}", 105),
          Kind::kNotAnImage, "header longer");
  EXPECT_THROW(yolo::read_npy_image(dir / "missing.npy"), yolo::NpyError);
}

// Interoperability with numpy (in the project venv): numpy reads ours, we read numpy's formats
// 1.0-3.0.
TEST(NpyImage, MatchesNumpy) {
  const std::string python = python_with_numpy();
  if (python.empty())
    GTEST_SKIP() << YOLO_TEST_PYTHON << " has no numpy (run tools/install-deps.sh)";
  const fs::path dir = fs::temp_directory_path() / "yolo_npy_numpy";
  fs::remove_all(dir);
  fs::create_directories(dir);
  cv::Mat img(7, 5, CV_8UC3);
  cv::randu(img, cv::Scalar::all(0), cv::Scalar::all(256));
  write_bytes(dir / "ours.npy", yolo::encode_npy_image(img));
  // Element [r, c, ch] of numpy's array equals the Mat's.
  const std::string check = python +
                            " -c \"import numpy as np, sys; a = np.load(sys.argv[1]); "
                            "assert a.shape == (7, 5, 3) and a.dtype == np.uint8, a.shape; "
                            "print(int(a[6, 4, 2]), int(a[0, 1, 0]))\" " +
                            (dir / "ours.npy").string() + " > " + (dir / "out.txt").string();
  ASSERT_EQ(std::system(check.c_str()), 0);
  int last = -1, second = -1;
  std::ifstream(dir / "out.txt") >> last >> second;
  EXPECT_EQ(last, img.at<cv::Vec3b>(6, 4)[2]);
  EXPECT_EQ(second, img.at<cv::Vec3b>(0, 1)[0]);
  const std::string save = python +
                           " -c \"import numpy as np, sys; from numpy.lib import format as f; "
                           "a = np.arange(4 * 6 * 3, dtype=np.uint8).reshape(4, 6, 3); "
                           "np.save(sys.argv[1], a); "
                           "[f.write_array(open(p, 'wb'), a, version=v) for p, v in "
                           "((sys.argv[2], (2, 0)), (sys.argv[3], (3, 0)))]\" " +
                           (dir / "v1.npy").string() + " " + (dir / "v2.npy").string() + " " +
                           (dir / "v3.npy").string();
  ASSERT_EQ(std::system(save.c_str()), 0);
  for (const char* name : {"v1.npy", "v2.npy", "v3.npy"}) {
    cv::Mat t = yolo::read_npy_image(dir / name);
    ASSERT_EQ(t.rows, 4) << name;
    ASSERT_EQ(t.cols, 6) << name;
    EXPECT_EQ(t.at<cv::Vec3b>(3, 5)[2], 4 * 6 * 3 - 1) << name;
    EXPECT_EQ(t.at<cv::Vec3b>(0, 1)[0], 3) << name;
  }
}

// cache=disk writes <image>.npy on first use and decodes from it afterwards, with the same
// batches as no cache; a corrupt or stale cache is decoded again and rewritten, never fatal.
TEST(DataLoader, DiskCacheWritesNpyNextToImagesAndReadsThem) {
  auto records = make_records(fs::temp_directory_path() / "yolo_loader_disk_cache");
  yolo::LoaderOptions o;
  o.imgsz = 64;
  o.batch = 4;
  o.workers = 2;
  yolo::DataLoader plain(records, o);
  o.cache_disk = true;
  yolo::DataLoader cached(records, o);
  const auto reference = epoch_batches(plain, 0);
  auto expect_reference = [&](yolo::DataLoader& loader, const std::string& what) {
    const auto got = epoch_batches(loader, 0);
    ASSERT_EQ(got.size(), reference.size());
    for (size_t k = 0; k < got.size(); ++k)
      EXPECT_TRUE(torch::equal(got[k].images, reference[k].images)) << what << ", batch " << k;
  };
  expect_reference(cached, "first epoch (writing the cache)");
  const fs::path npy0 = fs::path(records[0].image).replace_extension(".npy");
  for (const auto& r : records)
    ASSERT_TRUE(fs::exists(fs::path(r.image).replace_extension(".npy"))) << r.image;
  expect_reference(cached, "second epoch (reading it)");

  // The cache is what gets read: a black .npy of the right size turns image 0 black.
  const std::string original = read_bytes(npy0);
  write_bytes(npy0, yolo::encode_npy_image(
                        cv::Mat(records[0].height, records[0].width, CV_8UC3, cv::Scalar::all(0))));
  yolo::DataLoader reads(records, o);
  const auto black = epoch_batches(reads, 0);
  bool differs = false;
  for (size_t k = 0; k < black.size(); ++k)
    differs = differs || !torch::equal(black[k].images, reference[k].images);
  EXPECT_TRUE(differs) << "the loader decoded the image instead of reading its cache";

  // Corrupt: decoded again, rewritten, same batches.
  write_bytes(npy0, original.substr(0, original.size() / 2));
  yolo::DataLoader after_corrupt(records, o);
  expect_reference(after_corrupt, "truncated cache");
  EXPECT_EQ(read_bytes(npy0), original) << "the truncated cache is rewritten";

  // Stale: an image newer than its cache is decoded again.
  write_bytes(npy0, yolo::encode_npy_image(
                        cv::Mat(records[0].height, records[0].width, CV_8UC3, cv::Scalar::all(0))));
  fs::last_write_time(npy0, fs::last_write_time(records[0].image) - std::chrono::hours(1));
  yolo::DataLoader after_stale(records, o);
  expect_reference(after_stale, "stale cache");
  EXPECT_EQ(read_bytes(npy0), original) << "the stale cache is rewritten";

  // Another size: made from another image, so decoded again and rewritten.
  write_bytes(npy0, yolo::encode_npy_image(cv::Mat(5, 5, CV_8UC3, cv::Scalar::all(0))));
  yolo::DataLoader after_resize(records, o);
  expect_reference(after_resize, "cache of another size");
  EXPECT_EQ(read_bytes(npy0), original) << "the wrong-size cache is rewritten";

  // Someone else's array under that name (float32 here) is left alone; the image is decoded.
  const std::string foreign =
      npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", 48);
  write_bytes(npy0, foreign);
  yolo::DataLoader beside_foreign(records, o);
  expect_reference(beside_foreign, "a foreign .npy");
  EXPECT_EQ(read_bytes(npy0), foreign) << "a file that is not an image cache was overwritten";

  // img0.png and img0.jpg would share img0.npy: neither is cached, both load correctly.
  fs::remove(npy0);
  auto twins = records;
  yolo::ImageRecord jpg = records[0];
  jpg.image = fs::path(records[0].image).replace_extension(".jpg");
  cv::imwrite(jpg.image.string(), cv::imread(records[0].image.string()));
  twins.push_back(jpg);
  o.shuffle = false;
  yolo::LoaderOptions no_cache = o;
  no_cache.cache_disk = false;
  yolo::DataLoader twins_plain(twins, no_cache), twins_cached(twins, o);
  const auto tp = epoch_batches(twins_plain, 0), tc = epoch_batches(twins_cached, 0);
  ASSERT_EQ(tp.size(), tc.size());
  for (size_t k = 0; k < tp.size(); ++k) EXPECT_TRUE(torch::equal(tp[k].images, tc[k].images));
  EXPECT_FALSE(fs::exists(npy0)) << "two images were cached under one name";
  EXPECT_TRUE(fs::exists(fs::path(records[1].image).replace_extension(".npy")));
}
