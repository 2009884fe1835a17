// The MOTChallenge text format, the common currency of MOT ground truth and tracker output:
// one box a line, `frame,id,x,y,w,h,conf,x,y,z`, frames counted from 1, (x, y) the top-left
// corner and (w, h) the size in pixels. Columns 7-10 mean different things per benchmark
// (MOT15: confidence or the "consider" flag, then world x, y, z; MOT16+ ground truth:
// consider flag, class, visibility); they are kept as read and never interpreted here.
//
// The reader accepts what the evaluation kits accept: 6 to 10 values a line, separated by commas
// (with optional spaces around them) or by whitespace alone, and skips blank lines. Anything else
// throws a yolo::FailureError that names the file and the line.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace yolo::tracking {

struct MotRow {
  int frame = 1;  // 1-based
  int id = 0;     // -1 in detection files (boxes without identity)
  double x = 0.0;
  double y = 0.0;
  double w = 0.0;
  double h = 0.0;
  double conf = 1.0;  // column 7; 1 when the line has only 6 columns
  // Columns 8-10, -1 when absent (the format's "unused" value).
  double extra1 = -1.0;
  double extra2 = -1.0;
  double extra3 = -1.0;
  int line = 0;  // 1-based line it was read from; 0 for rows made in memory
};

// The rows of one file (or text) and where they came from, for error messages.
struct MotTable {
  std::string source;  // the path, or a name given to parse_mot_text
  std::vector<MotRow> rows;
};

// Parses MOTChallenge text; `source` names it in errors ("gt.txt:12: ...").
MotTable parse_mot_text(std::string_view text, const std::string& source);

// Reads a MOTChallenge file. Throws yolo::FailureError if it cannot be read or a line is
// malformed (wrong number of values, a value that is not a finite number, a frame or id that is
// not an integer, a frame below 1, a negative width or height).
MotTable read_mot_file(const std::filesystem::path& path);

// The rows as MOTChallenge text, ten columns a line, numbers in their shortest exact form
// (so that reading the text back gives the same doubles).
std::string format_mot_rows(const std::vector<MotRow>& rows);

// Writes the rows atomically: the file appears complete under its name or not at all.
void write_mot_file(const std::filesystem::path& path, const std::vector<MotRow>& rows);

// A MOTChallenge sequence's seqinfo.ini ([Sequence] name=, imDir=, frameRate=, seqLength=,
// imExt=): what is absent keeps the value below (the layout every MOT benchmark uses).
struct SequenceInfo {
  std::string name;             // the sequence's name ("" when the file gives none)
  std::string im_dir = "img1";  // the frames' folder, relative to the sequence folder
  int im_dir_line = 0;          // the line that says imDir=; 0 when the file does not
  double frame_rate = 0;        // frames per second; 0 when not given
  int64_t length = -1;          // frames; -1 when not given
  std::string im_ext = ".jpg";
};

// Reads seq/seqinfo.ini with the project's INI and text rules (yolo/core/ini_text.h: a
// byte-order mark and CRLF are fine). Throws yolo::UsageError quoting the line for a value that
// is not a number where one is due, a key given twice, a line that is not INI, and keys outside
// a [Sequence] section in a file that has none; yolo::FailureError when the file cannot be read
// or is not UTF-8. Unknown keys (imWidth, ...) and other sections are ignored.
SequenceInfo read_sequence_info(const std::filesystem::path& path);
SequenceInfo parse_sequence_info(std::string_view text, const std::string& source);

}  // namespace yolo::tracking
