// Text files as editors write them, read one way everywhere (labels, dataset, model, tracker and
// analytics YAML, the service configuration, lists of files): a UTF-8 byte-order mark (Windows
// editors write one) is dropped and CRLF line ends become LF; any other byte that is not UTF-8 is
// named by its value, line and column, as a person finds it in an editor (#57).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "yolo/core/utf8.h"

namespace yolo {

struct EditorText {
  std::string text;                    // without the byte-order mark, LF line ends
  std::optional<InvalidUtf8> invalid;  // where `text` stops being UTF-8, if it does
};

// `bytes` as an editor shows them (see above). Positions in `invalid` count in the returned text,
// which is what an editor shows: the mark is no column, and a removed CR ended its line.
EditorText editor_text(std::string_view bytes);

// "<what> '<source>' is not UTF-8 text: byte 0xFF at line 2, column 7 (offset 15); save it as
// UTF-8": the one message for such a file.
std::string not_utf8_message(std::string_view what, std::string_view source,
                             const InvalidUtf8& where);

// The bytes of `path`. Throws std::runtime_error naming `what` and the path, and the real
// problem: "<what> '<path>' does not exist", "... is a directory, not a file", "... cannot be
// read (<reason>)".
std::string read_file_bytes(const std::filesystem::path& path, std::string_view what);

// read_file_bytes, then editor_text; throws std::runtime_error with not_utf8_message for text
// that is not UTF-8.
std::string read_text_file(const std::filesystem::path& path, std::string_view what);

}  // namespace yolo
