// Checks every image and label of a split once, in parallel, and caches the result beside the
// labels folder (Ultralytics' <labels>.cache), keyed by a fingerprint of all files.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <fstream>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <sstream>
#include <thread>

#include "yolo/core/atomic_file.h"
#include "yolo/core/text_file.h"
#include "yolo/core/utf8.h"
#include "yolo/trainer/data/dataset.h"

namespace yolo {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kCacheVersion = 1;
constexpr int kMinImageSide = 10;  // Ultralytics rejects smaller images

// FNV-1a over the paths, sizes and modification times of every image and label file: any
// change (edit, replace, add, remove) changes the fingerprint.
std::string fingerprint(const std::vector<fs::path>& images) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
    h ^= 0xff;
    h *= 1099511628211ull;
  };
  for (const auto& img : images) {
    for (const fs::path& p : {img, label_path_for(img)}) {
      std::error_code ec;
      mix(p.string());
      auto size = fs::file_size(p, ec);
      mix(ec ? "missing" : std::to_string(size));
      auto time = fs::last_write_time(p, ec);
      mix(ec ? "" : std::to_string(time.time_since_epoch().count()));
    }
  }
  return fmt::format("{:016x}", h);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A JPEG must end with the EOI marker FF D9; a truncated download decodes to a grey tail.
bool jpeg_is_complete(const fs::path& p) {
  std::ifstream in(p, std::ios::binary | std::ios::ate);
  if (!in || in.tellg() < 2) return false;
  in.seekg(-2, std::ios::end);
  unsigned char tail[2] = {0, 0};
  in.read(reinterpret_cast<char*>(tail), 2);
  return tail[0] == 0xFF && tail[1] == 0xD9;
}

// What the first bytes say a file is, for messages about files OpenCV cannot decode.
std::string image_kind(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  unsigned char h[12] = {};
  in.read(reinterpret_cast<char*>(h), sizeof h);
  const auto n = in.gcount();
  if (n >= 3 && h[0] == 0xFF && h[1] == 0xD8 && h[2] == 0xFF) return "jpeg";
  if (n >= 8 && h[0] == 0x89 && h[1] == 'P' && h[2] == 'N' && h[3] == 'G') return "png";
  if (n >= 2 && h[0] == 'B' && h[1] == 'M') return "bmp";
  if (n >= 4 && ((h[0] == 'I' && h[1] == 'I') || (h[0] == 'M' && h[1] == 'M'))) return "tiff";
  if (n >= 12 && h[0] == 'R' && h[1] == 'I' && h[8] == 'W' && h[9] == 'E') return "webp";
  return "";
}

// Why OpenCV could not decode `p`, in words a user can act on.
std::string unreadable_reason(const fs::path& p, const std::string& opencv_error) {
  std::error_code ec;
  const auto size = fs::file_size(p, ec);
  if (!ec && size == 0) return "empty file (0 bytes): copy the image again";
  const std::string kind = image_kind(p);
  if (kind.empty())
    return "not an image: its first bytes match no image format (JPEG, PNG, BMP, TIFF, WebP)";
  if (opencv_error.find("CV_IO_MAX_IMAGE_PIXELS") != std::string::npos)
    return fmt::format("{} image larger than OpenCV decodes (2^30 pixels); downscale it", kind);
  return fmt::format("corrupt {} image: it does not decode", kind);
}

struct Checked {
  bool ok = false;
  ImageRecord record;
  std::string reason;
  int duplicates = 0;
};

Checked check_one(const fs::path& image, int nc) {
  Checked c;
  c.record.image = image;
  std::string ext = image.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
  if ((ext == ".jpg" || ext == ".jpeg") && image_kind(image) == "jpeg" &&
      !jpeg_is_complete(image)) {
    c.reason = "corrupt JPEG: truncated (no end-of-image marker)";
    return c;
  }
  cv::Mat img;
  std::string opencv_error;
  try {
    img = cv::imread(image.string(), cv::IMREAD_COLOR);
  } catch (const cv::Exception& e) {
    opencv_error = e.what();
  }
  if (img.empty()) {
    c.reason = unreadable_reason(image, opencv_error);
    return c;
  }
  if (img.cols < kMinImageSide || img.rows < kMinImageSide) {
    c.reason =
        fmt::format("image is {}x{}, smaller than {} pixels", img.cols, img.rows, kMinImageSide);
    return c;
  }
  c.record.width = img.cols;
  c.record.height = img.rows;
  const fs::path label = label_path_for(image);
  std::error_code ec;
  if (fs::exists(label, ec)) {
    // As editors write it: a byte-order mark and CRLF line ends are fine, other non-UTF-8 bytes
    // are named (core/text_file.h).
    const EditorText text = editor_text(read_file(label));
    if (text.invalid) {
      c.reason = fmt::format("label {} is not UTF-8 text: {}; save it as UTF-8", label.string(),
                             describe(*text.invalid));
      return c;
    }
    LabelParseResult r = parse_label_text(text.text, nc);
    if (!r.error.empty()) {
      c.reason = fmt::format("label {} {}", label.string(), r.error);
      return c;
    }
    c.record.boxes = std::move(r.boxes);
    c.duplicates = r.duplicates_removed;
  }
  c.ok = true;
  return c;
}

json to_json(const DatasetScan& s) {
  json images = json::array();
  for (const auto& r : s.images) {
    json boxes = json::array();
    for (const auto& b : r.boxes) boxes.push_back({b.cls, b.cx, b.cy, b.w, b.h});
    images.push_back(
        {{"image", r.image.string()}, {"w", r.width}, {"h", r.height}, {"boxes", boxes}});
  }
  json skipped = json::array();
  for (const auto& k : s.skipped)
    skipped.push_back({{"file", k.file.string()}, {"reason", k.reason}});
  return {{"images", images}, {"skipped", skipped}, {"duplicates", s.duplicates_removed}};
}

DatasetScan from_json(const json& j) {
  DatasetScan s;
  for (const auto& r : j.at("images")) {
    ImageRecord rec;
    rec.image = r.at("image").get<std::string>();
    rec.width = r.at("w");
    rec.height = r.at("h");
    for (const auto& b : r.at("boxes")) {
      rec.boxes.push_back({b[0].get<int>(), b[1].get<float>(), b[2].get<float>(), b[3].get<float>(),
                           b[4].get<float>()});
    }
    s.instances += static_cast<int>(rec.boxes.size());
    if (rec.boxes.empty()) ++s.backgrounds;
    s.images.push_back(std::move(rec));
  }
  for (const auto& k : j.at("skipped")) {
    s.skipped.push_back({k.at("file").get<std::string>(), k.at("reason").get<std::string>()});
  }
  s.duplicates_removed = j.at("duplicates");
  return s;
}

}  // namespace

std::string DatasetScan::summary(const std::string& split, size_t max_listed) const {
  std::string out = fmt::format(
      "{}: {} images, {} backgrounds, {} skipped, {} instances{}{}", split, images.size(),
      backgrounds, skipped.size(), instances,
      duplicates_removed ? fmt::format(", {} duplicate labels removed", duplicates_removed) : "",
      from_cache ? " (from cache)" : "");
  for (size_t i = 0; i < skipped.size() && i < max_listed; ++i) {
    out += fmt::format("\n  skipped {}: {}", skipped[i].file.string(), skipped[i].reason);
  }
  if (skipped.size() > max_listed)
    out += fmt::format("\n  ... and {} more", skipped.size() - max_listed);
  return out;
}

fs::path label_scan_cache_path(const fs::path& first_image) {
  return label_path_for(first_image).parent_path().string() + ".yolo-edge.cache";
}

DatasetScan scan_dataset(const std::vector<fs::path>& images, int nc, int workers) {
  if (images.empty()) return {};
  // Our own name (JSON): Ultralytics keeps its pickled scan in labels/<split>.cache, and each tool
  // would refuse or rewrite the other's file if both used that name; neither reads the other's.
  const fs::path cache = label_scan_cache_path(images.front());
  const std::string hash = fingerprint(images);
  std::error_code ec;
  if (fs::exists(cache, ec)) {
    try {
      json j = json::parse(read_file(cache));
      if (j.value("version", 0) == kCacheVersion && j.value("hash", "") == hash &&
          j.value("nc", -1) == nc) {
        DatasetScan s = from_json(j);
        s.from_cache = true;
        return s;
      }
    } catch (const std::exception& e) {
      spdlog::warn("label cache '{}' is unreadable ({}); rebuilding it", cache.string(), e.what());
    }
  }

  std::vector<Checked> results(images.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < images.size(); i = next++) {
      try {
        results[i] = check_one(images[i], nc);
      } catch (const std::exception& e) {  // e.g. OpenCV's image size limit, out of memory
        results[i].record.image = images[i];
        results[i].reason = fmt::format("cannot be checked: {}", e.what());
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < std::max(1, workers); ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();

  DatasetScan s;
  for (auto& c : results) {
    if (!c.ok) {
      // Reasons quote label text and OpenCV's words, which may hold bytes that are not UTF-8:
      // written as \xNN they print, and the cache (JSON) can store them.
      s.skipped.push_back({c.record.image, escape_invalid_utf8(c.reason)});
      continue;
    }
    s.instances += static_cast<int>(c.record.boxes.size());
    s.duplicates_removed += c.duplicates;
    if (c.record.boxes.empty()) ++s.backgrounds;
    s.images.push_back(std::move(c.record));
  }
  json j = to_json(s);
  j["version"] = kCacheVersion;
  j["hash"] = hash;
  j["nc"] = nc;
  // File names are bytes on Linux; JSON holds only UTF-8, and a lossy name would point nowhere
  // when read back. Such a dataset is checked each time instead, and the user is told why.
  std::vector<const fs::path*> files;
  for (const auto& r : s.images) files.push_back(&r.image);
  for (const auto& k : s.skipped) files.push_back(&k.file);
  for (const fs::path* file : files) {
    if (const auto bad = find_invalid_utf8(file->string())) {
      spdlog::warn(
          "label cache '{}' not written: the file name '{}' is not UTF-8 (byte 0x{:02X}); the "
          "dataset will be checked again next time (rename the file to fix this)",
          cache.string(), escape_invalid_utf8(file->string()), bad->byte);
      return s;
    }
  }
  try {
    write_file_atomically(cache, j.dump());
  } catch (const std::exception& e) {
    spdlog::warn("cannot write label cache '{}' ({}); the dataset will be checked again next time",
                 cache.string(), e.what());
  }
  return s;
}

}  // namespace yolo
