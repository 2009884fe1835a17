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
  std::vector<std::string> notes;     // what was passed over on purpose, and the order chosen
};

// Local files are checked for existence here; contents are checked when read.
// A folder's or glob's files are taken in natural order (frame 2 before frame 10: numbers in
// names compare as numbers); where that differs from byte order a note says so. Files that are
// neither images nor videos (.DS_Store, Thumbs.db, notes) are passed over with a note.
// `images_only` (a tracked image sequence): when the source holds images, the videos and streams
// beside them are passed over with a note, since a sequence is its frames (a list of videos
// alone keeps them).
ExpandedSource expand_source(const std::string& source, bool images_only = false);

}  // namespace yolo::predict
