// Loader throughput against the training step it has to feed.
//
//   build/bin/bench_loader [--images N] [--imgsz 640] [--batch 8] [--out DIR]
//
// Generates a synthetic dataset (nothing is downloaded), then measures, in one run:
//   - the loader with mosaic at imgsz for workers 1 and 2 (images/s),
//   - one training step of yolo26n (forward + backward + SGD step) at the same size and batch,
// and prints a table with each loader's ratio to the step's images/s: a ratio >= 1 means the
// data never starves training on this machine. Also writes labels.jpg and train_batch0.jpg.
#include <fmt/format.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "bench_clock.h"
#include "yolo/core/log.h"
#include "yolo/core/main_guard.h"
#include "yolo/core/system_info.h"
#include "yolo/models/detection_model.h"
#include "yolo/synth/synthetic_data.h"
#include "yolo/trainer/data/data_loader.h"
#include "yolo/trainer/plots/plots.h"

namespace fs = std::filesystem;
using yolo::bench::Clock;
using yolo::bench::seconds_since;

namespace {

struct Args {
  int images = 96, imgsz = 640, batch = 8, step_batches = 2;
  fs::path out = "runs/bench/loader";
};

Args parse(int argc, char** argv) {
  Args a;
  CLI::App app{"bench_loader: the data loader against the training step it feeds"};
  app.add_option("--images", a.images, "synthetic training images")->capture_default_str();
  app.add_option("--imgsz", a.imgsz, "training size")->capture_default_str();
  app.add_option("--batch", a.batch, "images per batch")->capture_default_str();
  app.add_option("--out", a.out, "folder for the data and the table")->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  return a;
}

int run(int argc, char** argv) {
  yolo::log::init();
  Args args = parse(argc, argv);
  yolo::apply_thread_setting(0);
  fs::create_directories(args.out);

  yolo::synth::SynthOptions so;
  so.dir = args.out / "data";
  so.train_images = args.images;
  so.val_images = 8;
  so.imgsz = args.imgsz;
  auto report = yolo::synth::generate_synthetic_dataset(so);
  auto cfg = yolo::load_dataset_config(report.yaml);
  auto scan = yolo::scan_dataset(yolo::list_images(cfg.splits.at("train")), cfg.nc, 2);
  yolo::save_plot(args.out / "labels.jpg", yolo::plot_label_statistics(scan.images, cfg.names));

  struct Row {
    std::string what;
    double images_per_s;
  };
  std::vector<Row> rows;
  struct LoaderVariant {
    int workers;
    bool cache_ram;
  };
  for (const LoaderVariant v : {LoaderVariant{1, false}, {2, false}, {1, true}}) {
    yolo::LoaderOptions o;
    o.imgsz = args.imgsz;
    o.batch = args.batch;
    o.workers = v.workers;
    o.cache_ram = v.cache_ram;
    yolo::DataLoader loader(scan.images, o);
    if (v.cache_ram) {  // the first epoch fills the cache; the timed one reads from it
      loader.start_epoch(0);
      while (loader.next()) {
      }
    }
    const int epoch = v.cache_ram ? 1 : 0;
    loader.start_epoch(epoch);
    int n = 0;
    auto t0 = Clock::now();
    while (auto b = loader.next()) {
      if (n == 0 && v.workers == 1 && !v.cache_ram)
        yolo::save_plot(args.out / "train_batch0.jpg", yolo::plot_batch(*b, cfg.names));
      n += static_cast<int>(b->images.size(0));
    }
    rows.push_back(
        {fmt::format("loader, mosaic, workers={}{}", v.workers, v.cache_ram ? ", cache=ram" : ""),
         n / seconds_since(t0)});
  }

  // The step the loader feeds: yolo26n forward + backward + SGD at the same size and batch.
  auto model = yolo::build_model("yolo26n.yaml", cfg.nc);
  model->train();
  torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  torch::Tensor x = torch::rand({args.batch, 3, args.imgsz, args.imgsz});
  auto step = [&] {
    sgd.zero_grad();
    auto out = model->forward_train(x);
    // A stand-in loss with the real one's graph size (the trainer's loss is another issue).
    torch::Tensor loss = out.one2many.boxes.abs().mean() + out.one2many.scores.sigmoid().mean();
    if (out.one2one) loss = loss + out.one2one->scores.sigmoid().mean();
    loss.backward();
    sgd.step();
  };
  step();  // warm-up
  auto t0 = Clock::now();
  for (int i = 0; i < args.step_batches; ++i) step();
  const double step_ips = args.step_batches * args.batch / seconds_since(t0);
  rows.push_back({"training step yolo26n (baseline)", step_ips});

  fmt::print("\nLoader vs training step, imgsz {}, batch {}, {} images, {} threads\n\n", args.imgsz,
             args.batch, scan.images.size(), yolo::torch_threads());
  fmt::print("| {:<38} | {:>10} | {:>16} |\n", "what", "images/s", "ratio to step");
  fmt::print("|{:-<40}|{:->12}|{:->18}|\n", "", "", "");
  for (const auto& r : rows) {
    fmt::print("| {:<38} | {:>10.1f} | {:>15.2f}x |\n", r.what, r.images_per_s,
               r.images_per_s / step_ips);
  }
  fmt::print("\nPlots: {} and {}\n", (args.out / "labels.jpg").string(),
             (args.out / "train_batch0.jpg").string());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return yolo::run_guarded([&] { return run(argc, argv); });
}
