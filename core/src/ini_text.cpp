#include "yolo/core/ini_text.h"

#include <fmt/format.h>

#include <map>
#include <utility>

#include "yolo/core/error.h"
#include "yolo/core/strings.h"

namespace yolo {
namespace {

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
  for_each_line(text, [&](int number, std::string_view raw) {
    const std::string_view line = trim_space(raw);
    if (line.empty() || line.front() == ';' || line.front() == '#') return;
    if (line.front() == '[') {
      if (line.back() != ']' || line.size() < 3) {
        throw UsageError(fmt::format(
            "{}: line {} says {}: a section line is [name], with the name between brackets", source,
            number, quote(line)));
      }
      section = std::string(trim_space(line.substr(1, line.size() - 2)));
      ini.sections.push_back(section);
      return;
    }
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      throw UsageError(fmt::format(
          "{}: line {} says {}, which is neither [section], key=value nor a comment (; or #)",
          source, number, quote(line)));
    }
    IniEntry e{section, std::string(trim_space(line.substr(0, eq))),
               std::string(trim_space(line.substr(eq + 1))), number};
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
  });
  return ini;
}

}  // namespace yolo
