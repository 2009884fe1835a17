// source= text -> the inputs to read (files and URIs), in order, with a message for everything
// that named nothing readable. Folders, globs and .txt lists are expanded here; the inputs are
// then read one by one (input_sequence.cpp).
#pragma once

#include <string>
#include <vector>

#include "yolo/predict/frame_source.h"

namespace yolo::predict {

struct SourceInput {
  std::string path;  // a local file, a URI, or a webcam number
  FrameOrigin origin = FrameOrigin::kImage;
};

struct ExpandedSource {
  std::vector<SourceInput> inputs;
  std::vector<std::string> problems;  // one sentence each: what, and what to do
};

// Local files are checked for existence here; contents are checked when read.
ExpandedSource expand_source(const std::string& source);

}  // namespace yolo::predict
