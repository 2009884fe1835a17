// UTF-8 checks for text the product reads (YAML configurations, label files) and writes (JSON):
// where the first invalid byte is, as a person finds it in an editor, and a printable form of
// text that holds such bytes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace yolo {

// The first place where `text` stops being UTF-8 (RFC 3629: no overlong forms, no surrogates,
// nothing above U+10FFFF, no sequence cut short).
struct InvalidUtf8 {
  size_t offset = 0;  // of the byte that starts the invalid sequence, from 0
  size_t line = 1;    // from 1
  size_t column = 1;  // in characters, from 1
  unsigned char byte = 0;
};

std::optional<InvalidUtf8> find_invalid_utf8(std::string_view text);

// "byte 0xFF at line 2, column 7 (offset 15)"
std::string describe(const InvalidUtf8& where);

// `text` with each byte that is not part of valid UTF-8 written as \xNN, so that a message
// quoting it can be printed and stored as JSON.
std::string escape_invalid_utf8(std::string_view text);

}  // namespace yolo
