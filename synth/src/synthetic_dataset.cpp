// The dataset on disk: images and labels for both splits (in parallel), data.yaml, cleanup of
// an earlier run's leftovers, and the optional video.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <regex>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <opencv2/imgcodecs.hpp>

#include "yolo/core/atomic_file.h"
#include "yolo/synth/synthetic_data.h"

namespace yolo::synth {
namespace fs = std::filesystem;
namespace {

const char* split_name(SynthSplit s) {
  return s == SynthSplit::kTrain ? "train" : "val";
}

std::string stem_for(SynthSplit split, int index) {
  return fmt::format("{}_{:06d}", split_name(split), index);
}

struct Job {
  SynthSplit split;
  int index;
};

struct JobResult {
  std::vector<int> class_instances;
  bool background = false;
};

JobResult write_one_image(const SynthOptions& o, const Job& job) {
  const SynthImage img = render_synthetic_image(o, job.split, job.index);
  const bool png = o.image_format == ImageFormat::kPng;
  const std::string extension = png ? ".png" : ".jpg";
  std::vector<uchar> encoded;
  const std::vector<int> params = png ? std::vector<int>{cv::IMWRITE_PNG_COMPRESSION, 3}
                                      : std::vector<int>{cv::IMWRITE_JPEG_QUALITY, o.jpeg_quality};
  if (!cv::imencode(extension, img.image, encoded, params)) {
    throw std::runtime_error(
        fmt::format("synth: OpenCV could not encode a {} image (is libopencv-imgcodecs complete?)",
                    png ? "PNG" : "JPEG"));
  }
  const std::string stem = stem_for(job.split, job.index);
  const char* split = split_name(job.split);
  write_file_atomically(
      o.dir / "images" / split / (stem + extension),
      std::string_view(reinterpret_cast<const char*>(encoded.data()), encoded.size()));
  write_file_atomically(o.dir / "labels" / split / (stem + ".txt"), format_yolo_labels(img));

  JobResult r;
  r.class_instances.assign(o.num_classes, 0);
  for (const auto& obj : img.objects) ++r.class_instances[obj.class_id];
  r.background = img.objects.empty();
  return r;
}

// Runs every job on `threads` workers. Each image has its own random stream, so which worker
// renders it does not matter. The first failure stops the others and is rethrown.
std::vector<JobResult> run_jobs(const SynthOptions& o, const std::vector<Job>& jobs) {
  std::vector<JobResult> results(jobs.size());
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const size_t workers = std::min<size_t>(o.threads > 0 ? o.threads : cores, jobs.size());
  std::atomic<size_t> next{0}, done{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  const size_t total = jobs.size();
  const bool log_progress = total >= 40;  // short runs need no progress lines

  auto work = [&] {
    for (size_t i = next++; i < total && !failed; i = next++) {
      try {
        results[i] = write_one_image(o, jobs[i]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
        failed = true;
        return;
      }
      const size_t n = ++done;
      if (log_progress && n < total && n * 4 / total != (n - 1) * 4 / total) {
        spdlog::info("synth: {}/{} images ({}%)", n, total, n * 100 / total);
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (first_error) std::rethrow_exception(first_error);
  return results;
}

// Removes what an earlier run left behind: files of our naming scheme with an index beyond this
// run's count, images in the other format (a folder with both a.jpg and a.png would hold every
// image twice for the trainers), and Ultralytics' label caches, which would describe the old
// files.
void remove_stale_files(const SynthOptions& o, SynthSplit split, int count) {
  const char* split_str = split_name(split);
  const std::regex ours(fmt::format(R"({}_(\d+)\.(jpg|png|txt))", split_str));
  const std::string other_format = o.image_format == ImageFormat::kPng ? "jpg" : "png";
  for (const char* kind : {"images", "labels"}) {
    const fs::path folder = o.dir / kind / split_str;
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) continue;
    for (const auto& entry : fs::directory_iterator(folder)) {
      std::smatch m;
      const std::string name = entry.path().filename().string();
      if (std::regex_match(name, m, ours) &&
          (std::stoll(m[1].str()) >= count || m[2].str() == other_format)) {
        fs::remove(entry.path(), ec);
      }
    }
  }
  // Label caches of the old files are stale: ours and Ultralytics'.
  std::error_code ec;
  for (const char* suffix : {".yolo-edge.cache", ".cache"}) {
    const std::string name = split_str + std::string(suffix);
    if (fs::remove(o.dir / "labels" / name, ec)) {
      spdlog::info("synth: removed the stale label cache labels/{}", name);
    }
  }
}

std::string data_yaml(const SynthOptions& o) {
  std::string names;
  const std::vector<std::string> class_names = synth_class_names(o);
  for (size_t c = 0; c < class_names.size(); ++c)
    names += fmt::format("  {}: {}\n", c, class_names[c]);
  return fmt::format(
      "# Synthetic shapes dataset written by `yolo-trainer synth` (seed {}, imgsz {}).\n"
      "# No `path:` key: yolo-trainer and Ultralytics both read the splits relative to this "
      "file's\n"
      "# folder then (Ultralytics resolves a relative `path` against the working folder), so the\n"
      "# dataset can be moved as one folder and used by either tool.\n"
      "train: images/train  # {} images\n"
      "val: images/val  # {} images\n"
      "\n"
      "nc: {}\n"
      "names:\n"
      "{}",
      o.seed, o.imgsz, o.train_images, o.val_images, o.num_classes, names);
}

}  // namespace

SynthReport generate_synthetic_dataset(const SynthOptions& options) {
  validate_synth_options(options);
  const auto start = std::chrono::steady_clock::now();
  spdlog::info("synth: writing {} train and {} val images (imgsz {}, nc {}, seed {}) to {}",
               options.train_images, options.val_images, options.imgsz, options.num_classes,
               options.seed, options.dir.string());

  std::vector<Job> jobs;
  jobs.reserve(static_cast<size_t>(options.train_images) + options.val_images);
  for (int i = 0; i < options.train_images; ++i) jobs.push_back({SynthSplit::kTrain, i});
  for (int i = 0; i < options.val_images; ++i) jobs.push_back({SynthSplit::kVal, i});
  // The folders exist even for an empty split, so data.yaml never names a missing folder.
  for (const char* kind : {"images", "labels"}) {
    for (const char* split : {"train", "val"}) fs::create_directories(options.dir / kind / split);
  }
  remove_stale_files(options, SynthSplit::kTrain, options.train_images);
  remove_stale_files(options, SynthSplit::kVal, options.val_images);

  const std::vector<JobResult> results = run_jobs(options, jobs);

  SynthReport report;
  report.train_images = options.train_images;
  report.val_images = options.val_images;
  report.class_instances.assign(options.num_classes, 0);
  for (const auto& r : results) {
    report.background_images += r.background ? 1 : 0;
    for (int c = 0; c < options.num_classes; ++c) {
      report.class_instances[c] += r.class_instances[c];
      report.instances += r.class_instances[c];
    }
  }
  report.yaml = options.dir / "data.yaml";
  write_file_atomically(report.yaml, data_yaml(options));

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  spdlog::info(
      "synth: {} images ({} background only), {} labelled objects in {:.1f} s; dataset: {}",
      jobs.size(), report.background_images, report.instances, seconds, report.yaml.string());

  if (options.video) {
    report.video = options.dir / "video" / "synthetic.mp4";
    report.video_labels = options.dir / "video" / "synthetic.jsonl";
    report.video_mot = options.dir / "video" / "gt" / "gt.txt";
    generate_synthetic_video(options, report.video, report.video_labels, report.video_mot);
  }
  return report;
}

}  // namespace yolo::synth
