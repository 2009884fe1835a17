// Results as JSON lines: one FrameResult per line (docs/detections-json.md), appended to a file
// that is rotated by size, like a log:
//   results.jsonl    the file being written
//   results.jsonl.1  the most recent full one ... results.jsonl.N  the oldest kept
// Every line is flushed to the OS as soon as it is written (a reader tailing the file sees whole
// lines; a crash loses at most the line being written). Thread-safe: lines from many streams
// never interleave.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>

#include <nlohmann/json.hpp>

#include "yolo/runtime/detection.h"

namespace yolo::monitor {

struct JsonlWriterOptions {
  std::filesystem::path path;  // the file to append to; parent folders are created
  std::uint64_t max_bytes =
      100 << 20;       // rotate before a line would make the file larger; 0 = never
  int keep_files = 5;  // rotated files kept (0: a full file is simply removed)
};

class JsonlWriter {
 public:
  // Opens (appends to) options.path. Throws std::invalid_argument for an empty path or negative
  // keep_files, std::runtime_error naming the file when it cannot be opened.
  explicit JsonlWriter(JsonlWriterOptions options);
  // close().
  ~JsonlWriter();
  JsonlWriter(const JsonlWriter&) = delete;
  JsonlWriter& operator=(const JsonlWriter&) = delete;

  // Appends to_json(result) as one line. Throws std::runtime_error when the write, the flush or
  // a rotation fails, or after close().
  void write(const FrameResult& result);
  // Appends any JSON value as one line (the same rules).
  void write(const nlohmann::json& value);
  // Flushes and closes; later writes throw. Idempotent.
  void close();

  std::uint64_t lines_written() const;  // by this writer
  std::uint64_t rotations() const;      // by this writer

 private:
  void open_locked();
  void rotate_locked();

  const JsonlWriterOptions options_;
  mutable std::mutex mutex_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_{nullptr, &std::fclose};
  std::uint64_t size_ = 0;
  std::uint64_t lines_ = 0;
  std::uint64_t rotations_ = 0;
  bool closed_ = false;
};

}  // namespace yolo::monitor
