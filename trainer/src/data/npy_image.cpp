#include "yolo/trainer/data/npy_image.h"

#include <fmt/format.h>

#include <cstdint>
#include <fstream>
#include <regex>

namespace yolo {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

using Kind = NpyError::Kind;

[[noreturn]] void fail(const std::filesystem::path& path, Kind kind, const std::string& why) {
  throw NpyError(kind, fmt::format("'{}' is not a usable image cache: {}", path.string(), why));
}

}  // namespace

std::string encode_npy_image(const cv::Mat& bgr) {
  if (bgr.type() != CV_8UC3 || bgr.empty())
    throw std::invalid_argument("encode_npy_image: need a non-empty 8-bit 3-channel image");
  std::string header = fmt::format(
      "{{'descr': '|u1', 'fortran_order': False, 'shape': ({}, {}, 3), }}", bgr.rows, bgr.cols);
  // Magic, version and length take 10 bytes; numpy pads the header with spaces and a newline so
  // that the data starts on a 64-byte boundary.
  const size_t unpadded = kMagicSize + 4 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string out(kMagic, kMagicSize);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>((header.size() >> 8) & 0xff));
  out += header;
  const cv::Mat dense = bgr.isContinuous() ? bgr : bgr.clone();
  out.append(reinterpret_cast<const char*>(dense.data), dense.total() * dense.elemSize());
  return out;
}

cv::Mat read_npy_image(const std::filesystem::path& path) {
  std::error_code ec;
  const uintmax_t file_size = std::filesystem::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  if (ec || !in) fail(path, Kind::kNotAnImage, "cannot open it");
  char preamble[kMagicSize + 2];
  if (!in.read(preamble, sizeof preamble) || std::string(preamble, kMagicSize) != kMagic)
    fail(path, Kind::kNotAnImage, "no .npy magic");
  const int major = static_cast<unsigned char>(preamble[kMagicSize]);
  if (major < 1 || major > 3)
    fail(path, Kind::kNotAnImage, fmt::format("unknown .npy version {}", major));
  const int len_size = major == 1 ? 2 : 4;  // 2.0 and 3.0 have a 4-byte length
  unsigned char len_bytes[4] = {0, 0, 0, 0};
  if (!in.read(reinterpret_cast<char*>(len_bytes), len_size))
    fail(path, Kind::kTruncated, "truncated header");
  uint32_t header_len = 0;
  for (int i = len_size - 1; i >= 0; --i) header_len = (header_len << 8) | len_bytes[i];
  // numpy's own reading limit; it also keeps the regexes below on short input.
  if (header_len > 10000) fail(path, Kind::kNotAnImage, "header longer than numpy allows");
  std::string header(header_len, '\0');
  if (!in.read(header.data(), static_cast<std::streamsize>(header_len)))
    fail(path, Kind::kTruncated, "truncated header");

  // Read-only after initialisation, so loader threads may share them.
  static const std::regex descr(R"('descr'\s*:\s*'([^']{1,8})')");
  static const std::regex fortran(R"('fortran_order'\s*:\s*(True|False))");
  static const std::regex shape(
      R"('shape'\s*:\s*\(\s*(\d{1,9})\s*,\s*(\d{1,9})\s*,\s*(\d{1,9})\s*,?\s*\))");
  std::smatch m;
  if (!std::regex_search(header, m, descr) || (m[1] != "|u1" && m[1] != "<u1" && m[1] != "u1"))
    fail(path, Kind::kNotAnImage, "not an 8-bit unsigned array");
  if (!std::regex_search(header, m, fortran) || m[1] != "False")
    fail(path, Kind::kNotAnImage, "not in C order");
  if (!std::regex_search(header, m, shape) || std::stoll(m[3]) != 3)
    fail(path, Kind::kNotAnImage, "not an H x W x 3 array");
  const long long rows = std::stoll(m[1]), cols = std::stoll(m[2]);
  if (rows < 1 || cols < 1 || rows > 65535 || cols > 65535)
    fail(path, Kind::kNotAnImage, "implausible image size");
  const uintmax_t bytes = static_cast<uintmax_t>(rows) * static_cast<uintmax_t>(cols) * 3;
  const uintmax_t data_start = kMagicSize + 2 + static_cast<uintmax_t>(len_size) + header_len;
  if (file_size < data_start + bytes)
    fail(path, Kind::kTruncated,
         fmt::format("truncated data ({} bytes expected, {} present)", bytes,
                     file_size > data_start ? file_size - data_start : 0));
  cv::Mat image(static_cast<int>(rows), static_cast<int>(cols), CV_8UC3);
  if (!in.read(reinterpret_cast<char*>(image.data), static_cast<std::streamsize>(bytes)))
    fail(path, Kind::kTruncated, fmt::format("truncated data ({} bytes expected)", bytes));
  return image;
}

}  // namespace yolo
