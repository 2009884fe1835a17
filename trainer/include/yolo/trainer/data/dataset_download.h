// Fetching a missing dataset from the dataset YAML's `download:` URL (Ultralytics'
// check_det_dataset + safe_download + unzip_file), for http(s) URLs to .zip archives.
//
// What happens when ensure_dataset() finds the YAML's train/val sources missing:
//   1. The archive is downloaded with cpp-httplib into a temporary file (redirects followed,
//      failures retried with a doubling backoff), with a progress bar on stderr.
//   2. It is unpacked with libzip into `<root>.partial-<pid>`, a sibling of the dataset root.
//      Entries with absolute paths or `..` components are rejected (zip-slip); `__MACOSX/`,
//      `.DS_Store` and symbolic links are skipped.
//   3. Only a complete unpack is renamed to the dataset root (merged into it if the root folder
//      already exists), then the archive is deleted. On any failure the temporary file and folder
//      are removed, so no half-written dataset is ever left under the root's name.
//
// Layout convention (as Ultralytics): an archive whose entries all sit in one top-level folder
// named like the root (coco8.zip holding `coco8/images/...`) provides the root itself; any
// other archive is unpacked into the root.
//
// Error policy: every failure throws DatasetError naming the dataset path or URL, the cause
// (HTTP status, network error, bad archive entry) and what to do.
#pragma once

#include <filesystem>

#include "yolo/trainer/data/dataset.h"

namespace yolo {

struct DownloadOptions {
  // Seconds allowed to connect, and between any two reads or writes of the transfer (not for
  // the whole download, so large archives on slow links still finish).
  int timeout_s = 60;
  // Extra attempts after a failed one (network errors, timeouts, HTTP 5xx/408/429), so at most
  // 1 + retries requests. Other HTTP 4xx answers fail at once: asking again cannot help.
  int retries = 3;
  // Milliseconds to wait before the first retry; doubled for each further retry, at most 30 s.
  int backoff_ms = 1000;
  // Progress bar on stderr (bytes done/total, MB/s, at most ~10 updates a second). When false
  // or when stderr is not a terminal, progress is logged at info level every 25 % instead
  // (only the start and the end when the server sends no length).
  bool progress = true;
  // Folder for the temporary archive; empty: the dataset root's parent folder, so that
  // unpacking and renaming stay on one file system. Created if missing.
  std::filesystem::path temp_dir;
};

// True when every source of the `train` and `val` splits exists (folders, .txt lists or
// image files; their contents are not checked here, scan_dataset does that).
bool dataset_present(const DatasetConfig& cfg);

// Makes the dataset available: returns at once when dataset_present(cfg); otherwise downloads
// and unpacks cfg.download as described above and checks again. Throws DatasetError when the
// dataset is missing and the YAML has no `download:` URL, when the URL is not http(s) (or https
// without TLS support in cpp-httplib), when the download or unpacking fails, and when the
// unpacked archive still does not provide the train/val paths.
void ensure_dataset(const DatasetConfig& cfg, const DownloadOptions& opts = {});

}  // namespace yolo
