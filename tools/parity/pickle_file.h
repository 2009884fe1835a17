// Files of pickled values (torch::pickle_save / torch.save), as the parity tools and tests
// exchange them with Ultralytics' side: batches, initial weights, step dumps.
#pragma once

#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "yolo/core/atomic_file.h"

namespace yolo::parity {

inline c10::IValue read_pickle(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  return torch::pickle_load(bytes);
}

inline void write_pickle(const std::filesystem::path& path, const c10::IValue& value) {
  const std::vector<char> bytes = torch::pickle_save(value);
  yolo::write_file_atomically(path, std::string_view(bytes.data(), bytes.size()));
}

}  // namespace yolo::parity
