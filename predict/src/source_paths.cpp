#include "source_paths.h"

#include <fmt/format.h>
#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "yolo/core/text_file.h"

namespace yolo::predict {
namespace fs = std::filesystem;
namespace {

constexpr const char* kSupported =
    "images (bmp, jpg, jpeg, png, tif, tiff, webp, ...) or videos (mp4, avi, mkv, mov, ...)";

std::string extension_of(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext.empty() ? ext : ext.substr(1);
}

// Image or video by extension; false for anything else.
bool add_media_file(const fs::path& p, std::vector<SourceInput>& out) {
  const std::string ext = extension_of(p);
  if (is_image_extension(ext)) {
    out.push_back({p.string(), FrameOrigin::kImage});
  } else if (is_video_extension(ext)) {
    out.push_back({p.string(), FrameOrigin::kVideo});
  } else {
    return false;
  }
  return true;
}

void expand_folder(const fs::path& dir, ExpandedSource& out) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec)) files.push_back(entry.path());
  }
  if (ec) {
    out.problems.push_back(fmt::format("cannot list folder '{}' ({}): check its permissions",
                                       dir.string(), ec.message()));
    return;
  }
  std::sort(files.begin(), files.end());
  size_t added = 0;
  for (const auto& f : files) added += add_media_file(f, out.inputs) ? 1 : 0;
  if (added == 0) {
    out.problems.push_back(
        fmt::format("folder '{}' has no {}: put files there or point source= at another folder",
                    dir.string(), kSupported));
  }
}

void expand_glob(const std::string& pattern, ExpandedSource& out) {
  glob_t g{};
  // globfree also when glob fails: it may have allocated before failing.
  std::unique_ptr<glob_t, void (*)(glob_t*)> guard(&g, globfree);
  const int rc = glob(pattern.c_str(), 0, nullptr, &g);
  size_t added = 0;
  if (rc == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) {
      std::error_code ec;
      if (fs::is_regular_file(g.gl_pathv[i], ec))
        added += add_media_file(g.gl_pathv[i], out.inputs);
    }
  }
  if (added == 0) {
    out.problems.push_back(fmt::format(
        "'{}' matches no {}: check the pattern (quote it so that the shell does not expand it)",
        pattern, kSupported));
  }
}

bool exists_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

void expand_list(const fs::path& list, ExpandedSource& out) {
  std::string text;
  try {
    text = read_text_file(list, "list file");  // a byte-order mark and CRLF are fine
  } catch (const std::runtime_error& e) {
    out.problems.push_back(e.what());
    return;
  }
  const size_t before = out.inputs.size();
  int line_no = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    line.erase(0, line.find_first_not_of(" \t\r"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (line.empty()) continue;
    const InputKind line_kind = classify_source(line);
    if (line_kind == InputKind::kStream || line.find("://") != std::string::npos) {
      // URIs are taken as written (a URL is a stream or, with a video extension, a video).
      out.inputs.push_back(
          {line, line_kind == InputKind::kVideo ? FrameOrigin::kVideo : FrameOrigin::kStream});
      continue;
    }
    // Relative entries: the working folder first, then the list's own folder (Ultralytics).
    fs::path p = line;
    std::error_code ec;
    if (p.is_relative() && !fs::exists(p, ec) && fs::exists(list.parent_path() / p, ec))
      p = list.parent_path() / p;
    const std::string where = fmt::format("'{}' (line {} of {})", line, line_no, list.string());
    const InputKind kind = classify_source(p.string());
    if (kind == InputKind::kGlob) {
      expand_glob(p.string(), out);
    } else if (kind == InputKind::kFolder) {
      expand_folder(p, out);
    } else if (!fs::exists(p, ec)) {
      out.problems.push_back(fmt::format("{} does not exist: fix or remove the line", where));
    } else if (!add_media_file(p, out.inputs)) {
      out.problems.push_back(
          fmt::format("{} is not one of the {}: fix or remove the line", where, kSupported));
    }
  }
  if (out.inputs.size() == before) {
    out.problems.push_back(fmt::format(
        "list file '{}' names no readable image or video: add one path per line", list.string()));
  }
}

}  // namespace

ExpandedSource expand_source(const std::string& source) {
  ExpandedSource out;
  if (source.empty()) {
    out.problems.push_back(
        "no source given: set source= to an image, folder, glob, .txt list, video or stream URI");
    return out;
  }
  switch (classify_source(source)) {
    case InputKind::kStream:
      out.inputs.push_back({source, FrameOrigin::kStream});
      break;
    case InputKind::kVideo:
    case InputKind::kImage: {
      const bool video = classify_source(source) == InputKind::kVideo;
      if (source.find("://") == std::string::npos && !exists_file(source)) {
        out.problems.push_back(fmt::format(
            "{} '{}' does not exist: check the path (relative paths start at the working "
            "folder, {})",
            video ? "video" : "image", source, fs::current_path().string()));
      } else {
        out.inputs.push_back({source, video ? FrameOrigin::kVideo : FrameOrigin::kImage});
      }
      break;
    }
    case InputKind::kFolder:
      expand_folder(source, out);
      break;
    case InputKind::kGlob:
      expand_glob(source, out);
      break;
    case InputKind::kList:
      expand_list(source, out);
      break;
    case InputKind::kUnknown: {
      std::error_code ec;
      out.problems.push_back(
          fs::exists(source, ec)
              ? fmt::format("'{}' is not one of the {}, a folder, a .txt list or a stream URI "
                            "(rtsp://, http://, ...): give one of those",
                            source, kSupported)
              : fmt::format("'{}' does not exist: check the path (relative paths start at the "
                            "working folder, {})",
                            source, fs::current_path().string()));
      break;
    }
  }
  return out;
}

}  // namespace yolo::predict
