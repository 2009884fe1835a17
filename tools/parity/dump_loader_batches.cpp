// Writes every training batch our loader makes for a run, so that another trainer (Ultralytics,
// through tools/parity/ultralytics_replay_train.py) can train on exactly our batches. This splits a
// training-quality difference into "the data" and "the training loop": the same loop on both
// tools' batches, or both loops on the same batches.
//
//   build/bin/parity_dump_loader_batches --data DATA.yaml --out DIR [--imgsz 640] [--batch 16]
//       [--epochs 100] [--seed 0] [--close-mosaic 10]
//
// The loader is built as `yolo-trainer train` builds it with the default augmentation settings
// (config/default.yaml), mosaic closed for the last --close-mosaic epochs. DIR/e<E>_b<I>.pt holds
// {"images": uint8 (B, 3, H, W) RGB, "targets": float (N, 6) image, class, cx, cy, w, h} written
// with torch::pickle_save (torch.load reads it).
#include <fmt/format.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "yolo/core/log.h"
#include "yolo/trainer/data_loader.h"
#include "yolo/trainer/dataset.h"

namespace fs = std::filesystem;

namespace {

struct Args {
  fs::path data, out;
  int imgsz = 640, batch = 16, epochs = 100, close_mosaic = 10;
  uint64_t seed = 0;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--data")
      a.data = v;
    else if (k == "--out")
      a.out = v;
    else if (k == "--imgsz")
      a.imgsz = std::stoi(v);
    else if (k == "--batch")
      a.batch = std::stoi(v);
    else if (k == "--epochs")
      a.epochs = std::stoi(v);
    else if (k == "--seed")
      a.seed = std::stoull(v);
    else if (k == "--close-mosaic")
      a.close_mosaic = std::stoi(v);
    else
      throw std::invalid_argument("unknown option " + k +
                                  " (--data --out --imgsz --batch --epochs --seed --close-mosaic)");
  }
  if (a.data.empty() || a.out.empty()) throw std::invalid_argument("--data and --out are required");
  return a;
}

void write_batch(const fs::path& path, const yolo::Batch& b) {
  c10::impl::GenericDict d(c10::StringType::get(), c10::AnyType::get());
  // The loader's floats are uint8 / 255, so rounding back is exact.
  d.insert("images", b.images.mul(255).round_().to(torch::kUInt8).contiguous());
  d.insert("targets", b.targets.contiguous());
  const std::vector<char> bytes = torch::pickle_save(c10::IValue(d));
  const fs::path tmp = path.string() + ".tmp";
  std::ofstream(tmp, std::ios::binary).write(bytes.data(), static_cast<long>(bytes.size()));
  fs::rename(tmp, path);
}

}  // namespace

int main(int argc, char** argv) try {
  yolo::log::init();
  const Args a = parse(argc, argv);
  fs::create_directories(a.out);
  const yolo::DatasetConfig cfg = yolo::load_dataset_config(a.data);
  auto records = yolo::scan_dataset(yolo::list_images(cfg.splits.at("train")), cfg.nc, 2).images;
  yolo::LoaderOptions o;
  o.imgsz = a.imgsz;
  o.batch = a.batch;
  o.workers = 2;
  o.seed = a.seed;
  yolo::DataLoader loader(std::move(records), o);
  int64_t written = 0;
  for (int e = 0; e < a.epochs; ++e) {
    loader.set_mosaic(!(a.close_mosaic > 0 && e >= a.epochs - a.close_mosaic));
    loader.start_epoch(e);
    while (auto b = loader.next()) {
      write_batch(a.out / fmt::format("e{}_b{}.pt", e, b->index), *b);
      ++written;
    }
  }
  fmt::print("{} batches of {} epochs in {}\n", written, a.epochs, a.out.string());
  return 0;
} catch (const std::exception& e) {
  fmt::print(stderr, "parity_dump_loader_batches: {}\n", e.what());
  return 1;
}
