// Checks the CRC-32 of every entry of a zip archive (a TorchScript model is one). LibTorch's
// reader skips these checksums for speed, so a model whose tensor bytes were damaged after it was
// written (bad disk, interrupted copy over the top of it) loads and silently predicts nothing;
// checking them at load names the damaged file instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace yolo {

// A zip archive read into memory once, with its central directory: a model load reads its file
// from disk this once, and checks, LibTorch's readers and the tracer all work on these bytes.
class ZipArchive {
 public:
  struct Entry {
    std::string name;
    uint64_t method = 0, crc = 0, csize = 0, usize = 0, local = 0;
  };

  // Throws std::runtime_error when the file cannot be read or is not a zip archive (a truncated
  // one has no readable directory).
  static ZipArchive read(const std::string& path);
  // The same from bytes already in memory.
  static ZipArchive parse(std::string bytes);

  const std::string& bytes() const { return bytes_; }
  const std::vector<Entry>& entries() const { return entries_; }
  // The names of the entries, in directory order.
  std::vector<std::string> names() const;
  // The first problem found, naming the entry ("data/12 fails its CRC-32 check"), or nullopt
  // when every stored entry matches. Entries that are compressed (PyTorch stores, never
  // compresses) are not checked. Throws std::runtime_error for a record outside the file.
  std::optional<std::string> find_corrupt_entry() const;

 private:
  std::string bytes_;
  std::vector<Entry> entries_;
};

// ZipArchive::read(path).find_corrupt_entry().
std::optional<std::string> find_corrupt_zip_entry(const std::string& path);

// ZipArchive::read(path).names().
std::vector<std::string> zip_entry_names(const std::string& path);

// CRC-32 (IEEE 802.3, the zip and PNG checksum) of `size` bytes.
unsigned long crc32_of(const void* data, size_t size, unsigned long crc = 0);

}  // namespace yolo
