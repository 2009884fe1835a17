#include "yolo/core/ini_text.h"

#include <fmt/format.h>

#include <map>
#include <utility>

#include "yolo/core/error.h"

namespace yolo {
namespace {

std::string_view trim(std::string_view s) {
  const size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const size_t last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

// A line quoted for a message: as written, cut where it would flood the terminal.
std::string quote(std::string_view line) {
  constexpr size_t kShown = 80;
  return line.size() > kShown ? fmt::format("'{}...'", line.substr(0, kShown))
                              : fmt::format("'{}'", line);
}

}  // namespace

const IniEntry* IniText::find(std::string_view section, std::string_view key) const {
  for (const IniEntry& e : entries) {
    if (e.section == section && e.key == key) return &e;
  }
  return nullptr;
}

IniText parse_ini(std::string_view text, std::string_view source) {
  IniText ini;
  std::map<std::pair<std::string, std::string>, int> seen;  // (section, key) -> line
  std::string section;
  int number = 0;
  size_t start = 0;
  while (start < text.size()) {
    const size_t newline = text.find('\n', start);
    const size_t stop = newline == std::string_view::npos ? text.size() : newline;
    ++number;
    const std::string_view line = trim(text.substr(start, stop - start));
    start = stop + 1;
    if (line.empty() || line.front() == ';' || line.front() == '#') continue;
    if (line.front() == '[') {
      if (line.back() != ']' || line.size() < 3) {
        throw UsageError(fmt::format(
            "{}: line {} says {}: a section line is [name], with the name between brackets", source,
            number, quote(line)));
      }
      section = std::string(trim(line.substr(1, line.size() - 2)));
      ini.sections.push_back(section);
      continue;
    }
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      throw UsageError(fmt::format(
          "{}: line {} says {}, which is neither [section], key=value nor a comment (; or #)",
          source, number, quote(line)));
    }
    IniEntry e{section, std::string(trim(line.substr(0, eq))),
               std::string(trim(line.substr(eq + 1))), number};
    if (e.key.empty()) {
      throw UsageError(fmt::format("{}: line {} says {}: the key before '=' is missing", source,
                                   number, quote(line)));
    }
    const auto [it, fresh] = seen.emplace(std::make_pair(e.section, e.key), number);
    if (!fresh) {
      throw UsageError(fmt::format(
          "{}: {} is given twice{} (lines {} and {}): keep one, so that it is clear which counts",
          source, e.key, e.section.empty() ? "" : fmt::format(" in [{}]", e.section), it->second,
          number));
    }
    ini.entries.push_back(std::move(e));
  }
  return ini;
}

}  // namespace yolo
