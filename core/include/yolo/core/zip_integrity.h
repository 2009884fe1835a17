// Checks the CRC-32 of every entry of a zip archive (a TorchScript model is one). LibTorch's
// reader skips these checksums for speed, so a model whose tensor bytes were damaged after it was
// written (bad disk, interrupted copy over the top of it) loads and silently predicts nothing;
// checking them at load names the damaged file instead.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace yolo {

// The first problem found, naming the entry ("data/12 fails its CRC-32 check"), or nullopt when
// every stored entry matches. Entries that are compressed (PyTorch stores, never compresses) are
// not checked. Throws std::runtime_error when the file cannot be read or is not a zip archive.
std::optional<std::string> find_corrupt_zip_entry(const std::string& path);

// The names of the archive's entries, in directory order. Throws std::runtime_error when the file
// cannot be read or is not a zip archive (a truncated one has no readable directory).
std::vector<std::string> zip_entry_names(const std::string& path);

// CRC-32 (IEEE 802.3, the zip and PNG checksum) of `size` bytes.
unsigned long crc32_of(const void* data, size_t size, unsigned long crc = 0);

}  // namespace yolo
