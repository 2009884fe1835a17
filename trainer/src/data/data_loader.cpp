#include "yolo/trainer/data/data_loader.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <optional>
#include <set>

#include <sys/stat.h>

#include "yolo/core/atomic_file.h"
#include "yolo/core/box_math.h"
#include "yolo/core/serial_torch_ops.h"
#include "yolo/runtime/input_tensor.h"
#include "yolo/trainer/data/npy_image.h"

namespace yolo {
namespace {

// SplitMix64: decorrelates (seed, epoch, position) into independent generator seeds.
uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t z = a + 0x9e3779b97f4a7c15ull * (b + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A file's modification time (seconds, nanoseconds), or with `or_status_change` the newer of it
// and the status-change time: `cp -p`, `mv` or unzip keep an old mtime on a replaced image, but
// its ctime is new. nullopt when the file cannot be stat'ed.
std::optional<std::pair<int64_t, int64_t>> changed_time(const std::filesystem::path& p,
                                                        bool or_status_change) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return std::nullopt;
  const std::pair<int64_t, int64_t> m{st.st_mtim.tv_sec, st.st_mtim.tv_nsec};
  const std::pair<int64_t, int64_t> c{st.st_ctim.tv_sec, st.st_ctim.tv_nsec};
  return or_status_change ? std::max(m, c) : m;
}

}  // namespace

DataLoader::DataLoader(std::vector<ImageRecord> records, LoaderOptions options)
    : records_(std::move(records)), opts_(options) {
  if (opts_.batch < 1) throw std::invalid_argument("data loader: batch must be >= 1");
  if (opts_.world < 1 || opts_.rank < 0 || opts_.rank >= opts_.world)
    throw std::invalid_argument("data loader: need 0 <= rank < world");
  if (opts_.world > 1 && opts_.rect)
    throw std::invalid_argument("data loader: rect batches are not sharded across ranks");
  if (opts_.workers < 0) opts_.workers = 0;
  if (opts_.fraction < 1.0) {
    records_.resize(
        static_cast<size_t>(std::round(records_.size() * std::max(0.0, opts_.fraction))));
  }
  if (records_.empty()) throw std::invalid_argument("data loader: no usable images");
  if (opts_.augment && !opts_.cache_ram && opts_.buffer != 0) {
    buffer_size_ =
        opts_.buffer > 0
            ? static_cast<size_t>(opts_.buffer)
            : std::min({records_.size(), static_cast<size_t>(8 * opts_.batch), size_t{1000}});
  }
  npy_skip_.assign(records_.size(), 0);
  if (opts_.cache_disk) {
    // a.jpg and a.png would share a.npy, and each would be served the other's pixels: such
    // images are decoded every time instead.
    std::map<std::filesystem::path, std::vector<size_t>> by_npy;
    for (size_t i = 0; i < records_.size(); ++i)
      by_npy[npy_cache_path(records_[i].image)].push_back(i);
    size_t shared = 0;
    std::string example;
    for (const auto& [npy, users] : by_npy) {
      if (users.size() < 2) continue;
      for (size_t i : users) npy_skip_[i] = 1;
      if (example.empty()) example = npy.string();
      shared += users.size();
    }
    if (shared > 0)
      spdlog::warn(
          "cache=disk: {} images share a .npy name with another (e.g. '{}'); they are not cached",
          shared, example);
  }
  order_.resize(records_.size());
  std::iota(order_.begin(), order_.end(), size_t{0});
  if (opts_.rect) {
    // Sort by aspect ratio h/w; one shape per batch (Ultralytics' set_rectangle).
    std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
      return double(records_[a].height) / records_[a].width <
             double(records_[b].height) / records_[b].width;
    });
    for (size_t k = 0; k < batches_per_epoch(); ++k) {
      const size_t first = k * opts_.batch, last = std::min(first + opts_.batch, order_.size()) - 1;
      const double mini = double(records_[order_[first]].height) / records_[order_[first]].width;
      const double maxi = double(records_[order_[last]].height) / records_[order_[last]].width;
      double sh = 1, sw = 1;
      if (maxi < 1) {
        sh = maxi;
      } else if (mini > 1) {
        sw = 1 / mini;
      }
      auto side = [&](double f) {
        return static_cast<int>(std::ceil(f * opts_.imgsz / opts_.stride + opts_.rect_pad) *
                                opts_.stride);
      };
      rect_shapes_.emplace_back(side(sh), side(sw));
    }
  }
}

DataLoader::~DataLoader() {
  stop_workers();
}

size_t DataLoader::batches_per_epoch() const {
  const size_t global = static_cast<size_t>(opts_.batch) * static_cast<size_t>(opts_.world);
  return (records_.size() + global - 1) / global;
}

std::pair<int, int> DataLoader::batch_shape(size_t k) const {
  if (opts_.rect && k < rect_shapes_.size()) return rect_shapes_[k];
  return {opts_.imgsz, opts_.imgsz};
}

Sample DataLoader::load(size_t record) const {
  if (opts_.cache_ram || buffer_size_ > 0) {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    auto it = ram_cache_.find(record);
    if (it != ram_cache_.end()) return {it->second.image.clone(), it->second.boxes};
  }
  const ImageRecord& r = records_[record];
  Sample s;
  s.image = decode(record);
  const float w = static_cast<float>(s.image.cols), h = static_cast<float>(s.image.rows);
  for (const LabelBox& b : r.boxes) {
    const boxes::Xyxy c = boxes::to_xyxy({b.cx, b.cy, b.w, b.h});  // normalised
    s.boxes.push_back({b.cls, c.x1 * w, c.y1 * h, c.x2 * w, c.y2 * h});
  }
  s = resize_long_side(std::move(s), opts_.imgsz);
  if (opts_.cache_ram || buffer_size_ > 0) {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (ram_cache_.emplace(record, Sample{s.image.clone(), s.boxes}).second && buffer_size_ > 0) {
      buffer_order_.push_back(record);
      if (buffer_order_.size() > buffer_size_) {
        ram_cache_.erase(buffer_order_.front());
        buffer_order_.pop_front();
      }
    }
  }
  return s;
}

bool DataLoader::npy_usable(size_t record) const {
  if (!opts_.cache_disk) return false;
  std::lock_guard<std::mutex> lock(cache_mutex_);
  return !npy_skip_.at(record);
}

cv::Mat DataLoader::decode(size_t record) const {
  const ImageRecord& r = records_[record];
  const std::filesystem::path npy = npy_cache_path(r.image);
  const bool use_npy = npy_usable(record);
  if (use_npy) {
    // A cache older than its image is stale; one of another size was made from another image.
    const auto image_time = changed_time(r.image, true), npy_time = changed_time(npy, false);
    if (image_time && npy_time && *npy_time >= *image_time) {
      try {
        cv::Mat cached = read_npy_image(npy);
        if (cached.cols == r.width && cached.rows == r.height) return cached;
        spdlog::warn("'{}' is {}x{} but its image is {}x{}; decoding the image and rewriting it",
                     npy.string(), cached.cols, cached.rows, r.width, r.height);
      } catch (const NpyError& e) {
        if (e.kind() == NpyError::Kind::kNotAnImage) {
          // Someone else's file (a depth map, say): leave it alone and decode this image.
          spdlog::warn("{}; leaving it alone and decoding '{}' each time", e.what(),
                       r.image.string());
          std::lock_guard<std::mutex> lock(cache_mutex_);
          npy_skip_.at(record) = 1;
        } else {
          spdlog::warn("{}; decoding the image and rewriting it", e.what());
        }
      }
    }
  }
  cv::Mat image = cv::imread(r.image.string(), cv::IMREAD_COLOR);
  if (image.empty()) {
    throw std::runtime_error(
        fmt::format("cannot read '{}' (changed since the dataset was checked?)", r.image.string()));
  }
  if (use_npy && npy_usable(record)) {
    try {
      write_file_atomically(npy, encode_npy_image(image));
    } catch (const std::exception& e) {
      // A read-only dataset or a full disk costs speed, not the run.
      if (!disk_cache_warned_.exchange(true))
        spdlog::warn(
            "cache=disk: cannot write '{}' ({}); images without a cache are decoded each time",
            npy.string(), e.what());
    }
  }
  return image;
}

Sample DataLoader::make_sample(size_t position, int epoch, LetterboxTransform* transform) const {
  const size_t record = order_.at(position);
  Rng rng(mix(mix(opts_.seed, static_cast<uint64_t>(epoch)), position));
  const int s = opts_.imgsz;
  if (!opts_.augment) {
    auto [h, w] = batch_shape(position / opts_.batch);
    LetterboxOptions lb;
    lb.height = h;
    lb.width = w;
    lb.scaleup = false;
    Sample loaded = load(record);
    LetterboxTransform t;
    Sample out = letterbox_sample(loaded, lb, &t);
    if (transform) {
      // Original -> batch pixels: the long-side resize folded into the letterbox gain.
      const ImageRecord& r = records_[record];
      *transform = t;
      transform->src_width = r.width;
      transform->src_height = r.height;
      transform->gain_x = t.gain_x * loaded.image.cols / r.width;
      transform->gain_y = t.gain_y * loaded.image.rows / r.height;
      // Boxes go back with the same gains, as Ultralytics' val maps them (its ratio_pad).
      transform->back_gain_x = transform->gain_x;
      transform->back_gain_y = transform->gain_y;
    }
    return out;
  }
  if (opts_.rect) {
    // Rect training (Ultralytics): no mosaic, mixup or cutmix (their second samples would have
    // other shapes); the random perspective centres the image on the batch's shape.
    auto [h, w] = batch_shape(position / opts_.batch);
    Sample out = random_perspective(load(record), opts_.hyp, w, h, rng);
    finish_augment(out, rng);
    return out;
  }
  std::uniform_int_distribution<size_t> pick(0, records_.size() - 1);
  // Ultralytics' pre_transform: the mosaic (or the image alone) then the random perspective, which
  // centres either on the s x s output. No letterbox: its whole-pixel padding would shift an
  // image with an odd margin by half a pixel against Ultralytics' (tests/parity/
  // test_augment_replay_parity.cpp replays its draws).
  auto pre_transform = [&](size_t first) {
    if (mosaic_ && std::uniform_real_distribution<double>(0, 1)(rng) < opts_.hyp.mosaic) {
      std::vector<Sample> tiles{load(first)};
      for (int i = 0; i < 3; ++i) tiles.push_back(load(pick(rng)));
      return random_perspective(mosaic4(tiles, s, rng), opts_.hyp, s, s, rng);
    }
    return random_perspective(load(first), opts_.hyp, s, s, rng);
  };
  Sample out = pre_transform(record);
  // MixUp with a second pre-transformed sample; off once mosaic closes, as in Ultralytics. The
  // probability is only drawn when mixup is on, so mixup=0 leaves every other draw as it was.
  if (opts_.hyp.mixup > 0 && mosaic_ &&
      std::uniform_real_distribution<double>(0, 1)(rng) < opts_.hyp.mixup) {
    const size_t other = pick(rng);
    out = mixup(std::move(out), pre_transform(other), rng);
  }
  // CutMix the same way, after MixUp (Ultralytics' order).
  if (opts_.hyp.cutmix > 0 && mosaic_ &&
      std::uniform_real_distribution<double>(0, 1)(rng) < opts_.hyp.cutmix) {
    const size_t other = pick(rng);
    out = cutmix(std::move(out), pre_transform(other), rng);
  }
  finish_augment(out, rng);
  return out;
}

void DataLoader::finish_augment(Sample& out, Rng& rng) const {
  random_hsv(out.image, opts_.hyp, rng);
  random_flips(out, opts_.hyp, rng);
  // Ultralytics' Format swaps BGR to RGB except with probability `bgr`. The batch tensor swaps
  // every image, so a sample that is to stay BGR is reversed here first. Drawn last and only when
  // bgr > 0, so the rest of the sample and every other run are unchanged.
  if (opts_.hyp.bgr > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < opts_.hyp.bgr) {
    cv::Mat reversed;
    cv::cvtColor(out.image, reversed, cv::COLOR_BGR2RGB);
    out.image = reversed;
  }
}

Batch DataLoader::make_batch(size_t k, int epoch) const {
  Batch b;
  b.index = static_cast<int64_t>(k);
  // Positions in the epoch's order: this rank's slice of global batch k. Sharded loaders pad the
  // last batch by wrapping around so that every rank runs the same number of full batches.
  const size_t n = order_.size(), b_size = static_cast<size_t>(opts_.batch);
  const size_t first =
      (k * static_cast<size_t>(opts_.world) + static_cast<size_t>(opts_.rank)) * b_size;
  const size_t last = opts_.world > 1 ? first + b_size : std::min(first + b_size, n);
  std::vector<cv::Mat> images;
  std::vector<float> targets;
  for (size_t slot = first; slot < last; ++slot) {
    const size_t pos = slot % n;
    const ImageRecord& r = records_[order_[pos]];
    LetterboxTransform t;
    Sample s = make_sample(pos, epoch, opts_.augment ? nullptr : &t);
    if (!opts_.augment) b.transforms.push_back(t);
    const float w = static_cast<float>(s.image.cols), h = static_cast<float>(s.image.rows);
    for (const PixelBox& box : s.boxes) {
      targets.insert(targets.end(), {static_cast<float>(slot - first), static_cast<float>(box.cls),
                                     (box.x1 + box.x2) / 2 / w, (box.y1 + box.y2) / 2 / h,
                                     (box.x2 - box.x1) / w, (box.y2 - box.y1) / h});
    }
    b.paths.push_back(r.image.string());
    b.source_sizes.emplace_back(r.height, r.width);
    images.push_back(std::move(s.image));
  }
  b.images = images_to_tensor(images, opts_.pin_memory);
  b.targets =
      torch::from_blob(targets.data(), {static_cast<int64_t>(targets.size() / 6), 6}, torch::kFloat)
          .clone();
  return b;
}

void DataLoader::worker_loop(int epoch) {
  // A batch's tensor work is light; the cores belong to the training step. Workers with CPU
  // threads of their own would make the step's threads park and wake at every op
  // (yolo/core/serial_torch_ops.h).
  const SerialTorchOps serial;
  const size_t total = batches_per_epoch();
  const size_t window = static_cast<size_t>(std::max(1, opts_.prefetch) * opts_.workers);
  while (true) {
    size_t k;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      space_cv_.wait(lock, [&] { return stopping_ || next_to_make_ < next_to_give_ + window; });
      if (stopping_ || next_to_make_ >= total) return;
      k = next_to_make_++;
    }
    try {
      Batch b = make_batch(k, epoch);
      std::lock_guard<std::mutex> lock(mutex_);
      ready_.emplace(k, std::move(b));
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
    ready_cv_.notify_all();
  }
}

void DataLoader::stop_workers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  space_cv_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void DataLoader::start_epoch(int epoch, size_t first_batch) {
  stop_workers();
  mosaic_ = mosaic_requested_;
  started_ = true;
  epoch_ = epoch;
  if (opts_.shuffle && !opts_.rect) {
    std::iota(order_.begin(), order_.end(), size_t{0});
    Rng rng(mix(opts_.seed, 0x5eed0000ull + static_cast<uint64_t>(epoch)));
    std::shuffle(order_.begin(), order_.end(), rng);
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ready_.clear();
    next_to_make_ = next_to_give_ = std::min(first_batch, batches_per_epoch());
    stopping_ = false;
    error_ = nullptr;
  }
  for (int i = 0; i < opts_.workers; ++i)
    threads_.emplace_back([this, epoch] { worker_loop(epoch); });
}

std::optional<Batch> DataLoader::next() {
  if (!started_) throw std::logic_error("DataLoader::next: call start_epoch first");
  if (opts_.workers == 0) {
    if (next_to_give_ >= batches_per_epoch()) return std::nullopt;
    return make_batch(next_to_give_++, epoch_);
  }
  std::unique_lock<std::mutex> lock(mutex_);
  if (next_to_give_ >= batches_per_epoch()) return std::nullopt;
  ready_cv_.wait(lock, [&] { return error_ || ready_.count(next_to_give_) > 0; });
  if (error_) std::rethrow_exception(error_);
  Batch b = std::move(ready_.at(next_to_give_));
  ready_.erase(next_to_give_++);
  lock.unlock();
  space_cv_.notify_all();
  return b;
}

bool disk_cache_fits(const std::vector<ImageRecord>& records) {
  if (records.empty()) return false;
  uintmax_t bytes = 0;  // pixels plus the .npy header, for the caches not written yet
  std::set<std::filesystem::path> counted;
  for (const auto& r : records) {
    const std::filesystem::path npy = npy_cache_path(r.image);
    std::error_code ec;
    if (!counted.insert(npy).second || std::filesystem::exists(npy, ec)) continue;
    bytes += static_cast<uintmax_t>(r.width) * r.height * 3 + 128;
  }
  std::error_code ec;
  const std::filesystem::space_info space =
      std::filesystem::space(records.front().image.parent_path(), ec);
  const double gb = 1024.0 * 1024.0 * 1024.0;
  if (!ec && static_cast<double>(space.available) < 1.5 * static_cast<double>(bytes)) {
    spdlog::warn(
        "cache=disk needs {:.1f} GB of .npy files but {:.1f} GB are free there; "
        "not caching images to disk",
        bytes / gb, static_cast<double>(space.available) / gb);
    return false;
  }
  spdlog::info(
      "cache=disk: decoded images are saved as .npy next to each image on first use "
      "({:.2f} GB still to write, for {} training and validation images)",
      bytes / gb, records.size());
  return true;
}

}  // namespace yolo
