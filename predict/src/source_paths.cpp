#include "source_paths.h"

#include <fmt/format.h>
#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "yolo/core/strings.h"
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

std::string some_names(const std::vector<std::string>& names) {
  constexpr size_t kShown = 5;
  std::string out;
  for (size_t i = 0; i < names.size() && i < kShown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > kShown) out += fmt::format(" and {} more", names.size() - kShown);
  return out;
}

// A folder's or glob's files in natural order (frame 2 before frame 10), with notes naming the
// files that are neither images nor videos, and saying so where the order of the media files
// differs from byte order (names numbered without zero padding, which Ultralytics takes in byte
// order). The number of media files added.
size_t add_in_natural_order(const std::string& where, std::vector<fs::path> files,
                            ExpandedSource& out) {
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    return natural_less(a.string(), b.string());
  });
  std::vector<fs::path> taken;
  std::vector<std::string> passed;
  for (const auto& f : files) {
    if (add_media_file(f, out.inputs)) {
      taken.push_back(f);
    } else {
      passed.push_back(f.filename().string());
    }
  }
  if (!passed.empty()) {
    out.notes.push_back(fmt::format("{}: passed over {} file{} that {} neither image nor video: {}",
                                    where, passed.size(), passed.size() == 1 ? "" : "s",
                                    passed.size() == 1 ? "is" : "are", some_names(passed)));
  }
  std::vector<fs::path> bytes = taken;
  std::sort(bytes.begin(), bytes.end());
  if (taken.size() > 1 && taken != bytes) {
    out.notes.push_back(fmt::format(
        "{}: files taken in number order ({}, {}, ... {}): their names are numbered without zero "
        "padding (Ultralytics takes them in name order: {}, {}, ...)",
        where, taken[0].filename().string(), taken[1].filename().string(),
        taken.back().filename().string(), bytes[0].filename().string(),
        bytes[1].filename().string()));
  }
  return taken.size();
}

// A tracked image sequence is its images: the videos and streams beside them are passed over
// and named. A source with no image keeps them (each video is then tracked on its own).
void keep_to_images(const std::string& source, ExpandedSource& out) {
  const auto is_image = [](const SourceInput& in) { return in.origin == FrameOrigin::kImage; };
  if (std::none_of(out.inputs.begin(), out.inputs.end(), is_image)) return;
  std::vector<std::string> passed;
  for (const auto& in : out.inputs) {
    if (!is_image(in)) passed.push_back(fs::path(in.path).filename().string());
  }
  if (passed.empty()) return;
  out.inputs.erase(std::remove_if(out.inputs.begin(), out.inputs.end(),
                                  [&](const SourceInput& in) { return !is_image(in); }),
                   out.inputs.end());
  out.notes.push_back(fmt::format(
      "source={}: passed over {} video{} or stream{} ({}): a tracked image sequence is its "
      "images; track a video on its own with source=<the video>",
      source, passed.size(), passed.size() == 1 ? "" : "s", passed.size() == 1 ? "" : "s",
      some_names(passed)));
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
  const size_t added = add_in_natural_order(fmt::format("folder '{}'", dir.string()), files, out);
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
  std::vector<fs::path> files;
  if (rc == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) {
      std::error_code ec;
      if (fs::is_regular_file(g.gl_pathv[i], ec)) files.emplace_back(g.gl_pathv[i]);
    }
  }
  const size_t added = add_in_natural_order(fmt::format("'{}'", pattern), files, out);
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

ExpandedSource expand_source(const std::string& source, bool images_only) {
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
  if (images_only) keep_to_images(source, out);
  return out;
}

}  // namespace yolo::predict
