// INI text as MOTChallenge's seqinfo.ini and other tools write it: `[section]` lines, `key=value`
// lines, `;` and `#` comment lines, blank lines. One reading for every INI file the project takes,
// after the project's text rules (read_text_file / editor_text: a byte-order mark dropped, CRLF,
// invalid UTF-8 named by byte and line).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace yolo {

struct IniEntry {
  std::string section;  // "" for a key above every [section] line
  std::string key, value;
  int line = 0;  // 1-based, as an editor shows it
};

struct IniText {
  std::vector<IniEntry> entries;  // in file order
  std::vector<std::string> sections;

  // The entry of `key` in `section`, or nullptr.
  const IniEntry* find(std::string_view section, std::string_view key) const;
};

// Parses `text` (already through editor_text). Throws yolo::UsageError naming `source`, the line
// and what it says for a line that is neither a section, a key=value pair nor a comment, for an
// empty key, and for a key given twice in one section (both lines named): an INI file that says
// two things leaves the reader guessing which one counts.
IniText parse_ini(std::string_view text, std::string_view source);

}  // namespace yolo
