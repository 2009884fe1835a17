// Source classification and naming (Ultralytics' data/utils.py IMG_FORMATS, VID_FORMATS and
// data/build.py check_source).
#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>

#include "yolo/core/strings.h"
#include "yolo/predict/frame_source.h"

namespace yolo {
namespace fs = std::filesystem;
namespace {

constexpr std::array<const char*, 11> kImageExtensions = {
    "bmp", "dng", "jpeg", "jpg", "mpo", "png", "tif", "tiff", "webp", "pfm", "heic"};
constexpr std::array<const char*, 12> kVideoExtensions = {
    "asf", "avi", "gif", "m4v", "mkv", "mov", "mp4", "mpeg", "mpg", "ts", "wmv", "webm"};
constexpr std::array<const char*, 5> kStreamSchemes = {"rtsp://", "rtmp://", "http://", "https://",
                                                       "tcp://"};

template <size_t N>
bool contains(const std::array<const char*, N>& list, const std::string& ext) {
  return std::any_of(list.begin(), list.end(), [&](const char* e) { return ext == e; });
}

bool is_uri(const std::string& source) {
  const std::string l = lower(source);
  return std::any_of(kStreamSchemes.begin(), kStreamSchemes.end(),
                     [&](const char* s) { return l.rfind(s, 0) == 0; });
}

bool is_webcam_index(const std::string& source) {
  return !source.empty() && std::all_of(source.begin(), source.end(),
                                        [](unsigned char c) { return std::isdigit(c) != 0; });
}

// The path part of a URI: after scheme://host, before ?query and #fragment.
std::string uri_path(const std::string& uri) {
  const size_t scheme = uri.find("://");
  const size_t start = uri.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (start == std::string::npos) return {};
  const size_t end = uri.find_first_of("?#", start);
  return uri.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string uri_host(const std::string& uri) {
  const size_t scheme = uri.find("://");
  const size_t begin = scheme == std::string::npos ? 0 : scheme + 3;
  const size_t end = uri.find_first_of("/?#", begin);
  std::string host = uri.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  const size_t at = host.rfind('@');  // drop user:password@
  return at == std::string::npos ? host : host.substr(at + 1);
}

std::string extension_of(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  return lower(ext.empty() ? ext : ext.substr(1));
}

std::string safe_file_name(std::string s) {
  for (char& c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (!(std::isalnum(u) || c == '-' || c == '_' || c == '.')) c = '_';
  }
  return s.empty() ? "source" : s;
}

}  // namespace

const char* to_string(InputKind kind) {
  switch (kind) {
    case InputKind::kImage:
      return "image";
    case InputKind::kFolder:
      return "folder";
    case InputKind::kGlob:
      return "glob";
    case InputKind::kList:
      return "list";
    case InputKind::kVideo:
      return "video";
    case InputKind::kStream:
      return "stream";
    case InputKind::kUnknown:
      break;
  }
  return "unknown";
}

bool is_image_extension(const std::string& ext) {
  return contains(kImageExtensions, lower(ext));
}
bool is_video_extension(const std::string& ext) {
  return contains(kVideoExtensions, lower(ext));
}

InputKind classify_source(const std::string& source) {
  if (is_webcam_index(source)) return InputKind::kStream;
  if (is_uri(source)) {
    // A URL naming a video file is read to the end like a local video (Ultralytics downloads
    // such files); everything else at a URL is live.
    return is_video_extension(extension_of(uri_path(source))) ? InputKind::kVideo
                                                              : InputKind::kStream;
  }
  if (source.find_first_of("*?") != std::string::npos) return InputKind::kGlob;
  std::error_code ec;
  if (fs::is_directory(source, ec)) return InputKind::kFolder;
  const std::string ext = extension_of(source);
  if (ext == "txt") return InputKind::kList;
  if (is_image_extension(ext)) return InputKind::kImage;
  if (is_video_extension(ext)) return InputKind::kVideo;
  return InputKind::kUnknown;
}

std::string source_stem(const std::string& source) {
  if (is_webcam_index(source)) return source;
  if (is_uri(source)) {
    std::string path = uri_path(source);
    while (!path.empty() && path.back() == '/') path.pop_back();
    const std::string last = path.substr(path.rfind('/') + 1);
    const std::string stem = fs::path(last).stem().string();
    return safe_file_name(stem.empty() ? uri_host(source) : stem);
  }
  return safe_file_name(fs::path(source).stem().string());
}

}  // namespace yolo
