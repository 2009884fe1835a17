// Atomic file writes: every file the product writes (checkpoints, results, label caches) either
// appears complete under its final name or not at all, even if the process dies midway.
#pragma once

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string_view>

#include "yolo/core/error.h"

namespace yolo {

// Calls write(tmp) with a temporary path in the destination's folder, then fsyncs the file (a
// full disk reported only there throws a SpaceError), renames it over `path` and fsyncs the
// folder. If anything throws, the temporary file is removed and the exception propagates; `path`
// is untouched. Creates missing parent folders. Temporary files of `path` left by a process that
// died mid-write (kill -9) are removed first.
void write_atomically(const std::filesystem::path& path,
                      const std::function<void(const std::filesystem::path& tmp)>& write);

// write_atomically for in-memory content, written with POSIX calls so that a full disk (ENOSPC),
// a quota (EDQUOT) or a file size limit (EFBIG) throws a SpaceError that names the file, the
// size needed and the space left.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// `to` becomes a copy of `from` atomically (through a temporary file, as write_atomically): a
// reader never sees half a copy, and a failed copy leaves `to` as it was.
void copy_file_atomically(const std::filesystem::path& from, const std::filesystem::path& to);

// `to` names the same bytes as `from`, atomically: a hard link renamed over `to` where the
// filesystem has them (nothing copied or flushed again: the trainer's best.pt after each improving
// epoch is a 30-60 MB copy otherwise), else copy_file_atomically. Only for files that are
// replaced by rename and never changed in place -- every writer in this file -- since an in-place
// change to one name would show under both.
void link_or_copy_atomically(const std::filesystem::path& from, const std::filesystem::path& to);

// A write that failed for want of space: the disk is full, a quota or a file size limit was hit.
class SpaceError : public FailureError {
 public:
  using FailureError::FailureError;
};

}  // namespace yolo
