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
#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>

#include "pickle_file.h"
#include "yolo/core/log.h"
#include "yolo/core/main_guard.h"
#include "yolo/trainer/data/data_loader.h"
#include "yolo/trainer/data/dataset.h"

namespace fs = std::filesystem;

namespace {

struct Args {
  std::string data, out;
  int imgsz = 640, batch = 16, epochs = 100, close_mosaic = 10;
  uint64_t seed = 0;
};

void write_batch(const fs::path& path, const yolo::Batch& b) {
  c10::impl::GenericDict d(c10::StringType::get(), c10::AnyType::get());
  // The loader's floats are uint8 / 255, so rounding back is exact.
  d.insert("images", b.images.mul(255).round_().to(torch::kUInt8).contiguous());
  d.insert("targets", b.targets.contiguous());
  yolo::parity::write_pickle(path, c10::IValue(d));
}

int run(int argc, char** argv) {
  Args a;
  CLI::App app{"parity_dump_loader_batches: our loader's training batches as files"};
  app.add_option("--data", a.data, "dataset YAML")->required();
  app.add_option("--out", a.out, "folder for e<E>_b<I>.pt")->required();
  app.add_option("--imgsz", a.imgsz, "training size")->capture_default_str();
  app.add_option("--batch", a.batch, "images per batch")->capture_default_str();
  app.add_option("--epochs", a.epochs, "epochs of the run")->capture_default_str();
  app.add_option("--seed", a.seed, "the run's seed")->capture_default_str();
  app.add_option("--close-mosaic", a.close_mosaic, "last epochs without mosaic")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  yolo::log::init();
  const fs::path out = a.out;
  fs::create_directories(out);
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
      write_batch(out / fmt::format("e{}_b{}.pt", e, b->index), *b);
      ++written;
    }
  }
  fmt::print("{} batches of {} epochs in {}\n", written, a.epochs, out.string());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return yolo::run_guarded([&] { return run(argc, argv); });
}
