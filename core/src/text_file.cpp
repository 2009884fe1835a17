#include "yolo/core/text_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace yolo {

EditorText editor_text(std::string_view bytes) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (bytes.substr(0, kBom.size()) == kBom) bytes.remove_prefix(kBom.size());
  EditorText out;
  out.text.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    // A CR that ends a line (CRLF) goes; a lone CR is kept, as the rest of the line's text.
    if (bytes[i] == '\r' && i + 1 < bytes.size() && bytes[i + 1] == '\n') continue;
    out.text.push_back(bytes[i]);
  }
  out.invalid = find_invalid_utf8(out.text);
  return out;
}

std::string not_utf8_message(std::string_view what, std::string_view source,
                             const InvalidUtf8& where) {
  return fmt::format("{} '{}' is not UTF-8 text: {}; save it as UTF-8", what,
                     escape_invalid_utf8(source), describe(where));
}

std::string read_file_bytes(const std::filesystem::path& path, std::string_view what) {
  namespace fs = std::filesystem;
  const std::string shown = escape_invalid_utf8(path.string());
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) {
    throw std::runtime_error(fmt::format("{} '{}' does not exist", what, shown));
  }
  if (status.type() == fs::file_type::directory) {
    throw std::runtime_error(
        fmt::format("{} '{}' is a directory, not a file: name the file inside it", what, shown));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error(
        fmt::format("{} '{}' cannot be read ({})", what, shown, std::strerror(errno)));
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) {
    throw std::runtime_error(fmt::format("{} '{}' cannot be read (an I/O error)", what, shown));
  }
  return bytes.str();
}

std::string read_text_file(const std::filesystem::path& path, std::string_view what) {
  EditorText t = editor_text(read_file_bytes(path, what));
  if (t.invalid) throw std::runtime_error(not_utf8_message(what, path.string(), *t.invalid));
  return std::move(t.text);
}

}  // namespace yolo
