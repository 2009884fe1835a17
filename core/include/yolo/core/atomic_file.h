// Atomic file writes: every file the product writes (checkpoints, results, label caches) either
// appears complete under its final name or not at all, even if the process dies midway.
#pragma once

#include <filesystem>
#include <functional>
#include <string_view>

namespace yolo {

// Calls write(tmp) with a temporary path in the destination's folder, then fsyncs the file,
// renames it over `path` and fsyncs the folder. If write throws, the temporary file is removed
// and the exception propagates; `path` is untouched. Creates missing parent folders.
void write_atomically(const std::filesystem::path& path,
                      const std::function<void(const std::filesystem::path& tmp)>& write);

// write_atomically for in-memory content.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace yolo
