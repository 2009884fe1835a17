#include "yolo/monitor/jsonl_writer.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace yolo::monitor {
namespace {

std::filesystem::path numbered(const std::filesystem::path& path, int n) {
  return path.string() + "." + std::to_string(n);
}

}  // namespace

JsonlWriter::JsonlWriter(JsonlWriterOptions options) : options_(std::move(options)) {
  if (options_.path.empty()) {
    throw std::invalid_argument("jsonl output: path is empty; set outputs.jsonl.path");
  }
  if (options_.keep_files < 0) {
    throw std::invalid_argument("jsonl output: keep_files must be >= 0");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  open_locked();
}

JsonlWriter::~JsonlWriter() {
  close();
}

void JsonlWriter::open_locked() {
  std::error_code ec;
  if (options_.path.has_parent_path()) {
    std::filesystem::create_directories(options_.path.parent_path(), ec);
  }
  file_.reset(std::fopen(options_.path.c_str(), "ab"));
  if (!file_) {
    throw std::runtime_error(
        fmt::format("jsonl output: cannot open {} for appending: {}; check "
                    "outputs.jsonl.path and the folder's permissions",
                    options_.path.string(), std::strerror(errno)));
  }
  const auto size = std::filesystem::file_size(options_.path, ec);
  size_ = ec ? 0 : size;
}

// results.jsonl.(N-1) -> .N, ..., results.jsonl -> .1; the oldest beyond keep_files goes.
void JsonlWriter::rotate_locked() {
  if (std::fflush(file_.get()) != 0) {
    throw std::runtime_error(fmt::format("jsonl output: cannot flush {}: {}",
                                         options_.path.string(), std::strerror(errno)));
  }
  file_.reset();
  std::error_code ec;
  if (options_.keep_files == 0) {
    std::filesystem::remove(options_.path, ec);
  } else {
    std::filesystem::remove(numbered(options_.path, options_.keep_files), ec);
    for (int n = options_.keep_files - 1; n >= 1; --n) {
      if (std::filesystem::exists(numbered(options_.path, n))) {
        std::filesystem::rename(numbered(options_.path, n), numbered(options_.path, n + 1), ec);
      }
    }
    std::filesystem::rename(options_.path, numbered(options_.path, 1), ec);
  }
  if (ec) {
    throw std::runtime_error(
        fmt::format("jsonl output: rotating {} failed: {}", options_.path.string(), ec.message()));
  }
  ++rotations_;
  open_locked();
}

void JsonlWriter::write(const FrameResult& result) {
  write(to_json(result));
}

void JsonlWriter::write(const nlohmann::json& value) {
  // Invalid UTF-8 (stream ids, class names come from outside) is replaced, never thrown on.
  const std::string line =
      value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_ || !file_) {
    throw std::runtime_error("jsonl output: write after close of " + options_.path.string());
  }
  if (options_.max_bytes > 0 && size_ > 0 && size_ + line.size() > options_.max_bytes) {
    rotate_locked();
  }
  if (std::fwrite(line.data(), 1, line.size(), file_.get()) != line.size() ||
      std::fflush(file_.get()) != 0) {
    throw std::runtime_error(fmt::format("jsonl output: cannot write {}: {}; is the disk full?",
                                         options_.path.string(), std::strerror(errno)));
  }
  size_ += line.size();
  ++lines_;
}

void JsonlWriter::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  closed_ = true;
  if (file_) std::fflush(file_.get());
  file_.reset();
}

std::uint64_t JsonlWriter::lines_written() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lines_;
}

std::uint64_t JsonlWriter::rotations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return rotations_;
}

}  // namespace yolo::monitor
