// The tracking library's readers of outside bytes: a tracker YAML (tracker=my.yaml), a
// MOTChallenge text file (ground truth or tracker output given to the evaluator) and a sequence's
// seqinfo.ini (the project's INI reading). Whatever the bytes, parse_tracker_config returns or
// throws yolo::UsageError, parse_mot_text returns or throws yolo::FailureError, and
// parse_sequence_info (after editor_text, as read_sequence_info reads a file) returns or throws
// yolo::UsageError, each naming the file and what is wrong; nothing else escapes, and what parses
// writes back and reads again the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "yolo/core/error.h"
#include "yolo/core/text_file.h"
#include "yolo/tracking/mot_format.h"
#include "yolo/tracking/tracker_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)yolo::tracking::parse_tracker_config(text, "fuzz.yaml");
  } catch (const yolo::UsageError&) {
  }
  try {
    const yolo::EditorText editor = yolo::editor_text(text);
    const yolo::tracking::SequenceInfo info =
        yolo::tracking::parse_sequence_info(editor.text, "seqinfo.ini");
    if (info.im_dir.empty() || info.im_dir_line < 0) std::abort();  // never empty: img1 default
  } catch (const yolo::UsageError&) {
  }
  try {
    const yolo::tracking::MotTable table = yolo::tracking::parse_mot_text(text, "fuzz.txt");
    const std::string again = yolo::tracking::format_mot_rows(table.rows);
    const yolo::tracking::MotTable back = yolo::tracking::parse_mot_text(again, "again.txt");
    if (back.rows.size() != table.rows.size()) std::abort();  // a round trip must keep every row
  } catch (const yolo::FailureError&) {
  }
  return 0;
}
