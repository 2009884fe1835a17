#include "mp4_colour_box.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <vector>

namespace yolo::media {
namespace {

// Big enough for any real 'moov' (a day of 30 fps video indexes in tens of MB); a larger one is
// not read and the range is left to the bitstream.
constexpr uint64_t kMaxMoovBytes = 256ull << 20;

uint32_t be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}
uint64_t be64(const uint8_t* p) {
  return (uint64_t{be32(p)} << 32) | be32(p + 4);
}

struct Box {
  char type[5] = {};
  size_t body = 0, end = 0;  // offsets into the buffer: the box's contents, and its end
};

// The boxes in bytes [begin, end) of `data`, stopping at the first malformed one.
std::vector<Box> children(const std::vector<uint8_t>& data, size_t begin, size_t end) {
  std::vector<Box> boxes;
  size_t at = begin;
  while (at + 8 <= end) {
    uint64_t size = be32(&data[at]);
    size_t header = 8;
    if (size == 1) {
      if (at + 16 > end) break;
      size = be64(&data[at + 8]);
      header = 16;
    } else if (size == 0) {
      size = end - at;
    }
    if (size < header || size > end - at) break;
    Box b;
    std::memcpy(b.type, &data[at + 4], 4);
    b.body = at + header;
    b.end = at + static_cast<size_t>(size);
    boxes.push_back(b);
    at = b.end;
  }
  return boxes;
}

// The first child of `parent` of this type (a copy: the list of children is a temporary).
std::optional<Box> child(const std::vector<uint8_t>& data, const std::optional<Box>& parent,
                         const char* type) {
  if (!parent) return std::nullopt;
  for (const Box& b : children(data, parent->body, parent->end))
    if (std::memcmp(b.type, type, 4) == 0) return b;
  return std::nullopt;
}

// Reads the top-level 'moov' box's contents, seeking over everything else (media data first or
// last, both are common).
std::optional<std::vector<uint8_t>> read_moov(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  file.seekg(0, std::ios::end);
  const uint64_t length = static_cast<uint64_t>(file.tellg());
  uint64_t at = 0;
  while (at + 8 <= length) {
    uint8_t header[16];
    file.seekg(static_cast<std::streamoff>(at));
    if (!file.read(reinterpret_cast<char*>(header), 8)) return std::nullopt;
    uint64_t size = be32(header);
    uint64_t header_size = 8;
    if (size == 1) {
      if (!file.read(reinterpret_cast<char*>(header + 8), 8)) return std::nullopt;
      size = be64(header + 8);
      header_size = 16;
    } else if (size == 0) {
      size = length - at;
    }
    if (size < header_size || size > length - at) return std::nullopt;
    if (std::memcmp(header + 4, "moov", 4) == 0) {
      if (size - header_size > kMaxMoovBytes) return std::nullopt;
      std::vector<uint8_t> moov(static_cast<size_t>(size - header_size));
      if (!file.read(reinterpret_cast<char*>(moov.data()),
                     static_cast<std::streamsize>(moov.size())))
        return std::nullopt;
      return moov;
    }
    at += size;
  }
  return std::nullopt;
}

}  // namespace

std::optional<bool> mp4_full_range_flag(const std::string& path) {
  const std::optional<std::vector<uint8_t>> moov = read_moov(path);
  if (!moov) return std::nullopt;
  const std::vector<uint8_t>& d = *moov;
  for (const Box& trak : children(d, 0, d.size())) {
    if (std::memcmp(trak.type, "trak", 4) != 0) continue;
    const std::optional<Box> stsd =
        child(d, child(d, child(d, child(d, trak, "mdia"), "minf"), "stbl"), "stsd");
    // stsd: version and flags (4 bytes), entry count (4), then the sample entries.
    if (!stsd || stsd->body + 8 > stsd->end) continue;
    for (const Box& entry : children(d, stsd->body + 8, stsd->end)) {
      // A visual sample entry's own fields take 78 bytes (ISO/IEC 14496-12 12.1.3); its child
      // boxes ('avcC', 'colr', 'pasp', ...) follow.
      constexpr size_t kVisualFields = 78;
      if (entry.body + kVisualFields > entry.end) continue;
      for (const Box& box : children(d, entry.body + kVisualFields, entry.end)) {
        // colr: colour type 'nclx' (4), primaries (2), transfer (2), matrix (2), then the
        // full-range flag in the top bit of the next byte.
        if (std::memcmp(box.type, "colr", 4) == 0 && box.body + 11 <= box.end &&
            std::memcmp(&d[box.body], "nclx", 4) == 0)
          return (d[box.body + 10] & 0x80) != 0;
      }
    }
  }
  return std::nullopt;
}

}  // namespace yolo::media
