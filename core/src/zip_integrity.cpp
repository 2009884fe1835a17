#include "yolo/core/zip_integrity.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "yolo/core/text_file.h"

namespace yolo {
namespace {

const std::array<uint32_t, 256>& crc_table() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  return table;
}

// Little-endian fields of the zip format, bounds-checked against the file.
class Bytes {
 public:
  explicit Bytes(const std::string& data) : d_(data) {}
  size_t size() const { return d_.size(); }
  const unsigned char* at(uint64_t offset, uint64_t n) const {
    if (offset > d_.size() || n > d_.size() - offset)
      throw std::runtime_error("a zip record points past the end of the file (truncated)");
    return reinterpret_cast<const unsigned char*>(d_.data()) + offset;
  }
  uint64_t le(uint64_t offset, int n) const {
    const unsigned char* p = at(offset, static_cast<uint64_t>(n));
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
  }

 private:
  const std::string& d_;
};

}  // namespace

unsigned long crc32_of(const void* data, size_t size, unsigned long crc) {
  const auto& t = crc_table();
  uint32_t c = static_cast<uint32_t>(crc) ^ 0xFFFFFFFFu;
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) c = t[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

ZipArchive ZipArchive::read(const std::string& path) {
  return parse(read_file_bytes(path, "zip archive"));
}

ZipArchive ZipArchive::parse(std::string bytes) {
  ZipArchive zip;
  zip.bytes_ = std::move(bytes);
  const Bytes z(zip.bytes_);

  // End of central directory: the last record, followed by at most a 64 KiB comment.
  constexpr uint64_t kEocd = 0x06054b50, kEocd64 = 0x06064b50, kLocator64 = 0x07064b50;
  if (z.size() < 22) throw std::runtime_error("not a zip archive (too short)");
  uint64_t eocd = z.size() - 22;
  const uint64_t lowest = z.size() > 22 + 65535 ? z.size() - 22 - 65535 : 0;
  while (z.le(eocd, 4) != kEocd) {
    if (eocd == lowest) throw std::runtime_error("not a zip archive (no end-of-directory record)");
    --eocd;
  }
  uint64_t entries = z.le(eocd + 10, 2), dir = z.le(eocd + 16, 4);
  if ((entries == 0xFFFF || dir == 0xFFFFFFFF) && eocd >= 20 && z.le(eocd - 20, 4) == kLocator64) {
    const uint64_t rec = z.le(eocd - 20 + 8, 8);
    if (z.le(rec, 4) != kEocd64) throw std::runtime_error("damaged ZIP64 end-of-directory record");
    entries = z.le(rec + 32, 8);
    dir = z.le(rec + 48, 8);
  }

  uint64_t p = dir;
  for (uint64_t i = 0; i < entries; ++i) {
    if (z.le(p, 4) != 0x02014b50) throw std::runtime_error("damaged zip central directory");
    Entry e;
    e.method = z.le(p + 10, 2), e.crc = z.le(p + 16, 4);
    e.csize = z.le(p + 20, 4), e.usize = z.le(p + 24, 4), e.local = z.le(p + 42, 4);
    const uint64_t name_len = z.le(p + 28, 2), extra_len = z.le(p + 30, 2),
                   comment_len = z.le(p + 32, 2);
    const unsigned char* name_ptr = z.at(p + 46, name_len);
    e.name.assign(reinterpret_cast<const char*>(name_ptr), name_len);
    // ZIP64 sizes and offsets live in extra field 0x0001, in this order, when 0xFFFFFFFF above.
    for (uint64_t x = p + 46 + name_len; x + 4 <= p + 46 + name_len + extra_len;) {
      const uint64_t id = z.le(x, 2), len = z.le(x + 2, 2);
      if (id == 0x0001) {
        uint64_t f = x + 4;
        if (e.usize == 0xFFFFFFFF) e.usize = z.le(f, 8), f += 8;
        if (e.csize == 0xFFFFFFFF) e.csize = z.le(f, 8), f += 8;
        if (e.local == 0xFFFFFFFF) e.local = z.le(f, 8);
      }
      x += 4 + len;
    }
    p += 46 + name_len + extra_len + comment_len;
    zip.entries_.push_back(std::move(e));
  }
  return zip;
}

std::vector<std::string> ZipArchive::names() const {
  std::vector<std::string> names;
  names.reserve(entries_.size());
  for (const Entry& e : entries_) names.push_back(e.name);
  return names;
}

std::optional<std::string> ZipArchive::find_corrupt_entry() const {
  const Bytes z(bytes_);
  for (const Entry& e : entries_) {
    if (e.method != 0) continue;  // compressed: the inflater would check it
    if (e.csize != e.usize)
      return fmt::format("entry '{}' is stored with two different sizes", e.name);
    if (z.le(e.local, 4) != 0x04034b50)
      return fmt::format("entry '{}' has no local header where the directory says", e.name);
    const uint64_t start = e.local + 30 + z.le(e.local + 26, 2) + z.le(e.local + 28, 2);
    if (crc32_of(z.at(start, e.csize), static_cast<size_t>(e.csize)) != e.crc)
      return fmt::format("entry '{}' fails its CRC-32 check", e.name);
  }
  return std::nullopt;
}

std::vector<std::string> zip_entry_names(const std::string& path) {
  return ZipArchive::read(path).names();
}

std::optional<std::string> find_corrupt_zip_entry(const std::string& path) {
  return ZipArchive::read(path).find_corrupt_entry();
}

}  // namespace yolo
