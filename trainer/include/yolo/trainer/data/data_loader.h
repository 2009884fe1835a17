// The training/validation data loader: `workers` threads decode and augment batches ahead of the
// consumer (bounded prefetch), in an order and with randomness that depend only on (seed, epoch),
// so a given seed yields the same batches with 0, 1 or 8 workers. With 0 workers next() makes
// each batch in the calling thread (Ultralytics' workers=0, what it uses for CPU training).
#pragma once

#include <torch/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "yolo/trainer/data/augment.h"
#include "yolo/trainer/data/dataset.h"

namespace yolo {

struct LoaderOptions {
  int imgsz = 640;         // training size / val long side (pixels, multiple of stride)
  int batch = 16;          // images per batch
  int workers = 2;         // decoding/augmenting threads; 0: in the thread that calls next()
  uint64_t seed = 0;       // `seed` key
  bool augment = true;     // training pipeline (mosaic, perspective, HSV, flips)
  bool shuffle = true;     // new order every epoch (training)
  bool rect = false;       // rectangular batches sorted by aspect ratio (never shuffled)
  double rect_pad = 0.5;   // Ultralytics' pad: 0.5 for validation, 0.0 for rect training
  int stride = 32;         // model stride; batch shapes are multiples of it
  double fraction = 1.0;   // use the first fraction of the images
  bool cache_ram = false;  // keep decoded, resized images in memory
  // Training only: the most recently decoded images kept in memory, as Ultralytics' mosaic
  // buffer does (a mosaic reads four images, so a small set is decoded once, not four times an
  // epoch). -1: Ultralytics' size, min(images, 8 * batch, 1000); 0: none. Pixels are the same
  // either way, so batches do not depend on it.
  int buffer = -1;
  bool cache_disk = false;  // decoded images as .npy next to each image (Ultralytics' cache=disk)
  bool pin_memory = false;  // page-locked batch tensors (GPU training)
  int prefetch = 2;         // batches ready ahead of the consumer, per worker
  AugmentParams hyp;        // augmentation strengths
  // Data-parallel training: this process takes slice `rank` of every global batch of
  // batch * world images (as DistributedSampler, padded by wrapping to equal batch counts).
  int rank = 0, world = 1;
};

// Ultralytics' check_cache_disk: the decoded images (.npy next to each image) not written yet,
// with a 50 % margin, must fit on the dataset's disk. False (with a warning) when they do not:
// training then goes on without the cache.
bool disk_cache_fits(const std::vector<ImageRecord>& records);

struct Batch {
  torch::Tensor images;   // (B, 3, H, W) float32 RGB in [0, 1]
  torch::Tensor targets;  // (N, 6): image index in batch, class, cx, cy, w, h normalised to (W, H)
  std::vector<std::string> paths;
  std::vector<std::pair<int, int>> source_sizes;  // (h, w) of each original image
  std::vector<LetterboxTransform> transforms;     // original -> batch pixels (validation)
  int64_t index = 0;                              // batch number within the epoch
};

class DataLoader {
 public:
  DataLoader(std::vector<ImageRecord> records, LoaderOptions options);
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  // Starts producing the batches of `epoch` (stops any epoch still running), from batch
  // `first_batch` on (resuming mid-epoch gives exactly the batches not yet trained).
  void start_epoch(int epoch, size_t first_batch = 0);
  // The next batch of the current epoch, in order; nullopt when the epoch is done.
  std::optional<Batch> next();

  // Turns mosaic on or off from the next start_epoch (close_mosaic).
  void set_mosaic(bool on) { mosaic_requested_ = on; }
  size_t size() const { return records_.size(); }
  size_t batches_per_epoch() const;
  // The batch shape (h, w) of batch k in rect mode; (imgsz, imgsz) otherwise.
  std::pair<int, int> batch_shape(size_t k) const;

  // The sample at `position` of `epoch` as the pipeline produces it (for tests and plots);
  // without augmentation `transform` receives the original -> batch pixel mapping.
  Sample make_sample(size_t position, int epoch, LetterboxTransform* transform = nullptr) const;
  // records[record] as the augmentations start from it: decoded, its long side resized to imgsz,
  // boxes in its pixels (Ultralytics' load_image).
  Sample load(size_t record) const;

 private:
  // The decoded original (BGR) of records_[record], through its .npy when cache_disk is on.
  cv::Mat decode(size_t record) const;
  // The .npy of records_[record] may be read and written (cache_disk on, no other image maps to
  // the same file, and the file there is not someone else's array).
  bool npy_usable(size_t record) const;
  // The augmentations after the geometric ones: HSV, flips and the `bgr` draw.
  void finish_augment(Sample& s, Rng& rng) const;
  Batch make_batch(size_t k, int epoch) const;
  void stop_workers();
  void worker_loop(int epoch);

  std::vector<ImageRecord> records_;
  LoaderOptions opts_;
  std::vector<size_t> order_;  // record index per position in the current epoch
  std::vector<std::pair<int, int>> rect_shapes_;
  std::atomic<bool> mosaic_requested_{true};
  bool mosaic_ = true;  // fixed for the running epoch, so batches never depend on timing
  bool started_ = false;
  int epoch_ = 0;  // the running epoch (for workers == 0)

  mutable std::mutex cache_mutex_;
  mutable std::map<size_t, Sample> ram_cache_;  // cache_ram, or the buffer's images
  mutable std::deque<size_t> buffer_order_;     // the buffer's records, oldest first
  size_t buffer_size_ = 0;                      // 0 with cache_ram (which keeps every image)
  mutable std::atomic<bool> disk_cache_warned_{false};  // one warning for unwritable caches
  mutable std::vector<char> npy_skip_;                  // per record; guarded by cache_mutex_

  std::mutex mutex_;
  std::condition_variable ready_cv_, space_cv_;
  std::map<size_t, Batch> ready_;
  size_t next_to_make_ = 0, next_to_give_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace yolo
