// The dataset YAML's `download:` URL (Ultralytics' safe_download + unzip_file): fetched with
// cpp-httplib into a temporary file, unpacked with libzip into a sibling of the dataset root and
// renamed into place only when complete.
#include "yolo/trainer/data/dataset_download.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <httplib.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "yolo/core/progress_bar.h"
#include "yolo/core/strings.h"

namespace yolo {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
constexpr bool kHttpsSupported = true;
#else
constexpr bool kHttpsSupported = false;
#endif

// Backoff doubling stops here so a large `retries` cannot stall for minutes between tries.
constexpr int kMaxBackoffMs = 30000;
constexpr size_t kCopyBufferBytes = 1 << 16;

// ---------------------------------------------------------------------------------------------
// Presence

struct MissingSource {
  std::string split;
  fs::path path;
};

std::vector<MissingSource> missing_sources(const DatasetConfig& cfg) {
  std::vector<MissingSource> missing;
  // val first: it is what Ultralytics checks, and train often names the same folder.
  for (const char* split : {"val", "train"}) {
    const auto it = cfg.splits.find(split);
    if (it == cfg.splits.end()) continue;
    for (const fs::path& src : it->second) {
      const bool listed = std::any_of(missing.begin(), missing.end(),
                                      [&](const MissingSource& m) { return m.path == src; });
      std::error_code ec;
      if (!listed && !fs::exists(src, ec)) missing.push_back({split, src});
    }
  }
  return missing;
}

// The source as the YAML spells it: relative to `path` when it lies under it.
std::string yaml_spelling(const DatasetConfig& cfg, const fs::path& source) {
  const fs::path rel = source.lexically_relative(cfg.root);
  if (rel.empty() || *rel.begin() == "..") return source.string();
  return rel.generic_string();
}

// "dataset images '/x/images/val' not found (from data.yaml: path=/x, val=images/val)"
std::string describe_missing(const DatasetConfig& cfg, const std::vector<MissingSource>& missing) {
  const MissingSource& first = missing.front();
  std::string msg = fmt::format("dataset images '{}' not found", first.path.string());
  if (!cfg.yaml_path.empty()) {
    msg += fmt::format(" (from {}: path={}, {}={})", cfg.yaml_path.string(), cfg.root.string(),
                       first.split, yaml_spelling(cfg, first.path));
  }
  for (size_t i = 1; i < missing.size(); ++i) {
    msg += fmt::format("{} '{}' ({})", i == 1 ? "; also missing:" : ",", missing[i].path.string(),
                       missing[i].split);
  }
  return msg;
}

// ---------------------------------------------------------------------------------------------
// Cleanup

// Removes a temporary file or folder when the scope ends, unless release()d: every failure path
// (exceptions included) leaves nothing half-written behind.
class RemoveOnExit {
 public:
  explicit RemoveOnExit(fs::path path) : path_(std::move(path)) {}
  ~RemoveOnExit() {
    if (path_.empty()) return;
    std::error_code ec;  // a destructor must not throw; a leftover is logged instead
    fs::remove_all(path_, ec);
    if (ec) spdlog::warn("cannot remove temporary '{}': {}", path_.string(), ec.message());
  }
  RemoveOnExit(const RemoveOnExit&) = delete;
  RemoveOnExit& operator=(const RemoveOnExit&) = delete;
  void release() { path_.clear(); }

 private:
  fs::path path_;
};

// ---------------------------------------------------------------------------------------------
// Download

struct Url {
  std::string scheme;     // "http" or "https", lower case
  std::string host_port;  // "example.com" or "127.0.0.1:8080"
  std::string target;     // "/path/name.zip?query", what the GET asks for
  std::string file_name;  // "name.zip", for messages
};

std::optional<Url> parse_url(const std::string& text) {
  const size_t sep = text.find("://");
  if (sep == std::string::npos) return std::nullopt;
  Url url;
  url.scheme = lower(std::string_view(text).substr(0, sep));
  if (url.scheme != "http" && url.scheme != "https") return std::nullopt;
  const size_t host_begin = sep + 3;
  const size_t host_end = text.find_first_of("/?#", host_begin);
  url.host_port = text.substr(
      host_begin, host_end == std::string::npos ? std::string::npos : host_end - host_begin);
  if (url.host_port.empty()) return std::nullopt;
  std::string rest = host_end == std::string::npos ? "" : text.substr(host_end);
  rest = rest.substr(0, rest.find('#'));  // fragments never go to the server
  url.target = rest.empty() || rest[0] != '/' ? "/" + rest : rest;
  const std::string path = url.target.substr(0, url.target.find('?'));
  url.file_name = path.substr(path.rfind('/') + 1);
  if (url.file_name.empty()) url.file_name = url.host_port;
  return url;
}

struct AttemptResult {
  bool ok = false;
  bool retryable = true;
  std::string error;  // what went wrong, for the log and the final message
};

bool retryable_status(int status) {
  return status >= 500 || status == 408 || status == 429;
}

std::string describe_http_error(httplib::Error e, int timeout_s) {
  switch (e) {
    case httplib::Error::Connection:
      return "cannot connect (refused or host unreachable)";
    case httplib::Error::ConnectionTimeout:
      return fmt::format("no connection within {} s", timeout_s);
    case httplib::Error::Read:
      return fmt::format("the connection broke, or stalled for over {} s, while reading",
                         timeout_s);
    case httplib::Error::Write:
      return "the connection broke while sending the request";
    case httplib::Error::ExceedRedirectCount:
      return "too many redirects";
    case httplib::Error::SSLConnection:
      return "TLS handshake failed";
    case httplib::Error::SSLLoadingCerts:
      return "cannot load the system's CA certificates";
    case httplib::Error::SSLServerVerification:
      return "the server's TLS certificate did not verify";
    default:
      return fmt::format("network error ({})", httplib::to_string(e));
  }
}

AttemptResult fetch_once(const Url& url, const fs::path& dest, const DownloadOptions& opts) {
  std::ofstream out(dest, std::ios::binary | std::ios::trunc);
  if (!out) {
    return {false, false, fmt::format("cannot create the temporary file '{}'", dest.string())};
  }
  httplib::Client client(url.scheme + "://" + url.host_port);
  client.set_follow_location(true);  // GitHub release assets answer with a redirect
  client.set_connection_timeout(opts.timeout_s, 0);
  client.set_read_timeout(opts.timeout_s, 0);
  client.set_write_timeout(opts.timeout_s, 0);

  int status = 0;
  bool write_failed = false;
  // A redrawn bar on a terminal; in a log, a line at each quarter (a download may take minutes).
  ProgressBar progress(0, {ProgressBar::Units::kBytes, opts.progress, /*log_quarters=*/true});
  progress.update(0, url.file_name);
  // httplib calls the response handler for the final (post-redirect) response only, before its
  // body; refusing a non-200 answer there keeps error pages out of the temporary file.
  const httplib::Result res = client.Get(
      url.target, httplib::Headers{},
      [&](const httplib::Response& r) {
        status = r.status;
        return r.status == 200;
      },
      [&](const char* data, size_t n) {
        out.write(data, static_cast<std::streamsize>(n));
        write_failed = !out;
        return !write_failed;
      },
      [&](uint64_t done, uint64_t total) {
        progress.set_total(static_cast<int64_t>(total));
        progress.update(static_cast<int64_t>(done), url.file_name);
        return true;
      });
  out.close();
  const bool ok = res && res->status == 200 && !write_failed && !out.fail();
  if (ok) {
    progress.finish();
  } else {
    progress.abandon();
  }
  if (ok) return {true, false, ""};
  if (write_failed || (res && out.fail())) {
    return {false, false,
            fmt::format("cannot write '{}' (disk full or not writable)", dest.string())};
  }
  if (status != 0 && status != 200) {
    return {false, retryable_status(status), fmt::format("HTTP status {}", status)};
  }
  return {false, true, describe_http_error(res.error(), opts.timeout_s)};
}

void download(const std::string& url_text, const Url& url, const fs::path& dest,
              const DownloadOptions& opts) {
  const int attempts = 1 + std::max(0, opts.retries);
  std::string error;
  int made = 0;
  for (int i = 0; i < attempts; ++i) {
    if (i > 0) {
      // 64-bit and a bounded shift: doubling must not overflow for a large `retries`.
      const int64_t delay_ms = std::min<int64_t>(
          kMaxBackoffMs, int64_t{std::max(0, opts.backoff_ms)} << std::min(i - 1, 20));
      spdlog::warn("download of {} failed ({}); retrying in {:.1f} s ({}/{})", url_text, error,
                   static_cast<double>(delay_ms) / 1000.0, i, attempts - 1);
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    }
    ++made;
    const AttemptResult r = fetch_once(url, dest, opts);
    if (r.ok) return;
    error = r.error;
    if (!r.retryable) break;
  }
  throw DatasetError(fmt::format(
      "cannot download the dataset from '{}': {} (after {} attempt{}); check the URL and the "
      "network, or download and unpack the archive yourself",
      url_text, error, made, made == 1 ? "" : "s"));
}

// ---------------------------------------------------------------------------------------------
// Unpack

struct ZipDiscard {
  void operator()(zip_t* z) const { zip_discard(z); }  // read-only: nothing to write back
};
struct ZipFileClose {
  void operator()(zip_file_t* f) const { zip_fclose(f); }
};
using ZipArchive = std::unique_ptr<zip_t, ZipDiscard>;
using ZipEntryFile = std::unique_ptr<zip_file_t, ZipFileClose>;

std::string zip_error_text(int code) {
  zip_error_t err;
  zip_error_init_with_code(&err, code);
  std::string text = zip_error_strerror(&err);
  zip_error_fini(&err);
  return text;
}

struct ZipEntry {
  zip_uint64_t index = 0;
  std::vector<std::string> parts;  // path components below the unpack folder
  bool is_dir = false;
  zip_uint64_t size = 0;
  bool size_known = false;
};

// Splits on both separators: archives made on Windows may use '\'.
std::vector<std::string> entry_parts(const std::string& name) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : name) {
    if (c == '/' || c == '\\') {
      if (!cur.empty() && cur != ".") parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty() && cur != ".") parts.push_back(cur);
  return parts;
}

// Zip-slip: an entry must stay inside the folder it is unpacked into.
bool unsafe_entry_name(const std::string& name, const std::vector<std::string>& parts) {
  if (name.empty()) return false;
  if (name[0] == '/' || name[0] == '\\') return true;
  if (name.size() >= 2 && name[1] == ':') return true;  // "C:\..." drive paths
  return std::find(parts.begin(), parts.end(), "..") != parts.end();
}

bool is_symlink_entry(zip_t* z, zip_uint64_t index) {
  zip_uint8_t opsys = 0;
  zip_uint32_t attributes = 0;
  if (zip_file_get_external_attributes(z, index, 0, &opsys, &attributes) != 0) return false;
  return opsys == ZIP_OPSYS_UNIX && ((attributes >> 16) & S_IFMT) == S_IFLNK;
}

void extract_file(zip_t* z, const ZipEntry& e, const fs::path& dest, const fs::path& archive) {
  ZipEntryFile in(zip_fopen_index(z, e.index, 0));
  if (!in) {
    throw DatasetError(fmt::format("archive '{}': cannot open entry '{}': {}", archive.string(),
                                   dest.filename().string(), zip_strerror(z)));
  }
  std::ofstream out(dest, std::ios::binary | std::ios::trunc);
  if (!out) throw DatasetError(fmt::format("cannot create '{}'", dest.string()));
  std::vector<char> buf(kCopyBufferBytes);
  zip_uint64_t total = 0;
  for (;;) {
    // zip_fread reports a CRC mismatch as an error on the last read, so a corrupt entry fails.
    const zip_int64_t n = zip_fread(in.get(), buf.data(), buf.size());
    if (n < 0) {
      throw DatasetError(fmt::format("archive '{}' is corrupt at entry for '{}': {}",
                                     archive.string(), dest.string(), zip_file_strerror(in.get())));
    }
    if (n == 0) break;
    out.write(buf.data(), static_cast<std::streamsize>(n));
    total += static_cast<zip_uint64_t>(n);
  }
  out.close();
  if (!out) throw DatasetError(fmt::format("cannot write '{}' (disk full?)", dest.string()));
  if (e.size_known && total != e.size) {
    throw DatasetError(fmt::format("archive '{}': entry for '{}' is truncated ({} of {} bytes)",
                                   archive.string(), dest.string(), total, e.size));
  }
}

// Reads and checks every entry name before anything is written, so a rejected archive writes
// nothing at all. Applies the one-top-level-folder convention (see the header).
std::vector<ZipEntry> plan_entries(zip_t* z, const fs::path& archive, const fs::path& root) {
  const zip_int64_t count = zip_get_num_entries(z, 0);
  std::vector<ZipEntry> entries;
  for (zip_int64_t i = 0; i < count; ++i) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z, static_cast<zip_uint64_t>(i), 0, &st) != 0 ||
        !(st.valid & ZIP_STAT_NAME)) {
      throw DatasetError(
          fmt::format("archive '{}' is corrupt: {}", archive.string(), zip_strerror(z)));
    }
    const std::string name = st.name;
    ZipEntry e;
    e.index = static_cast<zip_uint64_t>(i);
    e.parts = entry_parts(name);
    if (unsafe_entry_name(name, e.parts)) {
      throw DatasetError(fmt::format(
          "archive '{}' has an entry '{}' that points outside the folder it is unpacked into "
          "(absolute path or '..'); refusing to unpack it",
          archive.string(), name));
    }
    // macOS resource forks and Finder files are archive noise (Ultralytics skips them too).
    if (e.parts.empty() || e.parts.front() == "__MACOSX" || e.parts.back() == ".DS_Store") continue;
    if (is_symlink_entry(z, e.index)) {
      spdlog::warn("archive '{}': skipping symbolic link '{}'", archive.string(), name);
      continue;
    }
    e.is_dir = name.back() == '/' || name.back() == '\\';
    e.size = st.size;
    e.size_known = (st.valid & ZIP_STAT_SIZE) != 0;
    entries.push_back(std::move(e));
  }
  const std::string root_name = root.filename().string();
  const bool strip_top =
      !entries.empty() && std::all_of(entries.begin(), entries.end(), [&](const ZipEntry& e) {
        return e.parts.front() == root_name && (e.is_dir || e.parts.size() > 1);
      });
  if (strip_top) {
    for (ZipEntry& e : entries) e.parts.erase(e.parts.begin());
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [](const ZipEntry& e) { return e.parts.empty(); }),
                  entries.end());
  }
  return entries;
}

// Moves the contents of `from` into the existing folder `to`; the archive's files replace
// existing ones of the same name (as Ultralytics' extractall does). Each rename is atomic.
void merge_into(const fs::path& from, const fs::path& to) {
  std::vector<fs::path> children;  // listed first: renaming while iterating is unspecified
  for (const auto& entry : fs::directory_iterator(from)) children.push_back(entry.path());
  for (const fs::path& src : children) {
    const fs::path dst = to / src.filename();
    if (fs::is_directory(src) && fs::is_directory(dst)) {
      merge_into(src, dst);
      continue;
    }
    if (fs::exists(dst) && fs::is_directory(dst) != fs::is_directory(src)) fs::remove_all(dst);
    fs::rename(src, dst);
  }
}

// The sources under the root that the staged tree does not provide (checked before committing,
// so an archive with the wrong layout never lands under the root's name).
std::vector<MissingSource> missing_after_staging(const std::vector<MissingSource>& missing,
                                                 const fs::path& root, const fs::path& staging) {
  std::vector<MissingSource> still;
  for (const MissingSource& m : missing) {
    const fs::path rel = fs::absolute(m.path).lexically_normal().lexically_relative(root);
    if (rel.empty() || *rel.begin() == "..") continue;  // outside the root: checked after commit
    std::error_code ec;
    if (!fs::exists(staging / rel, ec)) still.push_back(m);
  }
  return still;
}

// Top-level names of the staged tree, to tell the user what the archive did contain.
std::string list_top_level(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    names.push_back(entry.path().filename().string() + (entry.is_directory(ec) ? "/" : ""));
  }
  std::sort(names.begin(), names.end());
  return names.empty() ? "nothing" : fmt::format("{}", fmt::join(names, ", "));
}

void unpack(const fs::path& archive, const DatasetConfig& cfg,
            const std::vector<MissingSource>& missing, const fs::path& root) {
  int code = 0;
  ZipArchive z(zip_open(archive.c_str(), ZIP_RDONLY, &code));
  if (!z) {
    throw DatasetError(fmt::format("the downloaded file from '{}' is not a usable zip archive: {}",
                                   cfg.download, zip_error_text(code)));
  }
  const std::vector<ZipEntry> entries = plan_entries(z.get(), archive, root);

  const fs::path staging =
      root.parent_path() / fmt::format("{}.partial-{}", root.filename().string(), getpid());
  fs::remove_all(staging);  // a leftover of a killed run that had the same pid
  fs::create_directories(staging);
  RemoveOnExit staging_guard(staging);
  spdlog::info("Unzipping {} to {} ...", cfg.download, root.string());
  for (const ZipEntry& e : entries) {
    fs::path dest = staging;
    for (const std::string& part : e.parts) dest /= part;
    if (e.is_dir) {
      fs::create_directories(dest);
    } else {
      fs::create_directories(dest.parent_path());
      extract_file(z.get(), e, dest, archive);
    }
  }

  const std::vector<MissingSource> still = missing_after_staging(missing, root, staging);
  if (!still.empty()) {
    throw DatasetError(fmt::format(
        "the archive from '{}' does not provide '{}' ({}={}); it holds: {}. Fix the YAML's "
        "path/{}, or the archive's layout (the dataset's contents, or one folder named '{}')",
        cfg.download, still.front().path.string(), still.front().split,
        yaml_spelling(cfg, still.front().path), list_top_level(staging), still.front().split,
        root.filename().string()));
  }
  if (!fs::exists(root)) {
    fs::rename(staging, root);  // the whole dataset appears at once
  } else {
    merge_into(staging, root);  // e.g. `path: .` next to the YAML: the root already exists
  }
  staging_guard.release();
  std::error_code ec;
  fs::remove_all(staging, ec);  // empty after a merge; absent after a rename
}

}  // namespace

bool dataset_present(const DatasetConfig& cfg) {
  return missing_sources(cfg).empty();
}

void ensure_dataset(const DatasetConfig& cfg, const DownloadOptions& opts) {
  const std::vector<MissingSource> missing = missing_sources(cfg);
  if (missing.empty()) return;
  const std::string what = describe_missing(cfg, missing);
  if (cfg.download.empty()) {
    throw DatasetError(fmt::format(
        "{} and the YAML has no download: URL; put the dataset there, fix the YAML's path, or "
        "add `download: https://.../name.zip`",
        what));
  }
  const std::optional<Url> url = parse_url(cfg.download);
  if (!url) {
    throw DatasetError(fmt::format(
        "{}; its download: '{}' is not an http(s) URL (download scripts are not supported); "
        "download and unpack the dataset yourself",
        what, cfg.download));
  }
  if (url->scheme == "https" && !kHttpsSupported) {
    throw DatasetError(fmt::format(
        "{}; its download: '{}' needs HTTPS, but cpp-httplib was built without OpenSSL; use an "
        "http:// mirror or download and unpack the dataset yourself",
        what, cfg.download));
  }
  if (cfg.root.empty()) {
    throw DatasetError(fmt::format("{}; the dataset has no root folder to unpack into", what));
  }

  const auto start = Clock::now();
  const fs::path root = fs::absolute(cfg.root).lexically_normal();
  spdlog::warn("{}", what);
  spdlog::info("Downloading {} to {} ...", cfg.download, root.string());
  try {
    // Temporaries sit beside the root so the final rename never crosses file systems.
    const fs::path temp_dir = opts.temp_dir.empty() ? root.parent_path() : opts.temp_dir;
    fs::create_directories(root.parent_path());
    fs::create_directories(temp_dir);
    const fs::path archive =
        temp_dir / fmt::format("{}.download-{}.zip", root.filename().string(), getpid());
    RemoveOnExit archive_guard(archive);  // deleted on success as well: the data is unpacked
    download(cfg.download, *url, archive, opts);
    unpack(archive, cfg, missing, root);
  } catch (const fs::filesystem_error& e) {
    throw DatasetError(fmt::format("cannot unpack the dataset from '{}' to '{}': {}", cfg.download,
                                   root.string(), e.what()));
  }

  const std::vector<MissingSource> still = missing_sources(cfg);
  if (!still.empty()) {
    throw DatasetError(fmt::format("{} after unpacking '{}'; fix the YAML's paths",
                                   describe_missing(cfg, still), cfg.download));
  }
  spdlog::info("Dataset download success ({:.1f} s), saved to {}",
               std::chrono::duration<double>(Clock::now() - start).count(), root.string());
}

}  // namespace yolo
