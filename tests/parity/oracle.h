// Shared by the tests labelled `parity`: Ultralytics, the reference implementation, runs as an
// oracle in the test Python (the project venv; tools/install-deps.sh --oracle installs it).
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "run_command.h"
#include "yolo/synth/synthetic_data.h"

namespace yolo::parity {

inline bool oracle_available() {
  const std::string cmd =
      std::string(YOLO_TEST_PYTHON) + " -c 'import ultralytics' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

// Runs tools/parity/<script_and_args> with the test Python in `cwd` and parses the JSON the
// script prints on its last line (Ultralytics logs to stdout before it); a discarded value
// (is_discarded(), neither object nor array) when it printed none.
inline nlohmann::json oracle_json(const std::string& script_and_args,
                                  const std::filesystem::path& cwd = ".") {
  const yolo::testing::CommandResult r = yolo::testing::run_command(
      "cd '" + cwd.string() + "' && " + YOLO_TEST_PYTHON + " " + YOLO_SOURCE_DIR +
      "/tools/parity/" + script_and_args + " 2>/dev/null | tail -n 1");
  return nlohmann::json::parse(r.output, nullptr, false);
}

// A synthetic shapes set (64 px images, 3 classes) in `dir`; returns its data.yaml.
inline std::filesystem::path shapes_dataset(const std::filesystem::path& dir, int train_images,
                                            int val_images) {
  yolo::synth::SynthOptions o;
  o.dir = dir;
  o.train_images = train_images;
  o.val_images = val_images;
  o.imgsz = 64;
  o.num_classes = 3;
  o.threads = 1;
  return yolo::synth::generate_synthetic_dataset(o).yaml;
}

}  // namespace yolo::parity

// Skips the calling test where the oracle is not installed.
#define YOLO_REQUIRE_ORACLE()                                                             \
  do {                                                                                    \
    if (!yolo::parity::oracle_available()) {                                              \
      GTEST_SKIP() << YOLO_TEST_PYTHON                                                    \
                   << " has no ultralytics (tools/install-deps.sh --oracle installs it)"; \
    }                                                                                     \
  } while (0)
