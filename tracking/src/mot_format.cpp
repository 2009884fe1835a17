#include "yolo/tracking/mot_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>

#include "yolo/core/atomic_file.h"
#include "yolo/core/error.h"
#include "yolo/core/ini_text.h"
#include "yolo/core/strings.h"
#include "yolo/core/text_file.h"

namespace yolo::tracking {
namespace {

constexpr size_t kMinColumns = 6;
constexpr size_t kMaxColumns = 10;
constexpr std::array<const char*, kMaxColumns> kColumnNames = {
    "frame", "id", "x", "y", "w", "h", "conf", "column 8", "column 9", "column 10"};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

[[noreturn]] void fail(const std::string& source, int line, const std::string& what) {
  throw FailureError(source + ":" + std::to_string(line) + ": " + what +
                     " (MOTChallenge rows are frame,id,x,y,w,h[,conf,x,y,z] with 1-based frames)");
}

// Splits on commas when the line has any (the usual form, spaces around them allowed), else on
// runs of whitespace (py-motmetrics' reader accepts both). An empty field stays empty, so that
// "1,,2" is reported rather than silently read as two values.
std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  if (line.find(',') != std::string_view::npos) {
    size_t start = 0;
    while (true) {
      const size_t comma = line.find(',', start);
      fields.push_back(
          trim_space(line.substr(start, comma == std::string_view::npos ? comma : comma - start)));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    return fields;
  }
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

// A finite number, the whole field (std::from_chars: no locale, no leading '+').
bool parse_number(std::string_view field, double& out) {
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  if (field.empty()) return false;
  const char* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

// Frame and id: integers, also when written as "3.0" (some writers print every column as float).
int integer_field(double v, size_t column, std::string_view field, const std::string& source,
                  int line) {
  if (v != std::floor(v) || v < std::numeric_limits<int>::min() ||
      v > std::numeric_limits<int>::max()) {
    fail(source, line,
         std::string(kColumnNames[column]) + " must be an integer, found '" + std::string(field) +
             "'");
  }
  return static_cast<int>(v);
}

MotRow parse_row(const std::vector<std::string_view>& fields, const std::string& source, int line) {
  if (fields.size() < kMinColumns || fields.size() > kMaxColumns) {
    fail(source, line, "expected 6 to 10 values, found " + std::to_string(fields.size()));
  }
  std::array<double, kMaxColumns> v{};
  for (size_t c = 0; c < fields.size(); ++c) {
    if (!parse_number(fields[c], v[c])) {
      fail(source, line,
           std::string(kColumnNames[c]) + " (value " + std::to_string(c + 1) +
               ") is not a finite number: '" + std::string(fields[c]) + "'");
    }
  }
  MotRow row;
  row.line = line;
  row.frame = integer_field(v[0], 0, fields[0], source, line);
  row.id = integer_field(v[1], 1, fields[1], source, line);
  if (row.frame < 1) {
    fail(source, line, "frame " + std::to_string(row.frame) + " is below 1");
  }
  row.x = v[2];
  row.y = v[3];
  row.w = v[4];
  row.h = v[5];
  if (row.w < 0.0 || row.h < 0.0) fail(source, line, "negative box width or height");
  if (fields.size() > 6) row.conf = v[6];
  if (fields.size() > 7) row.extra1 = v[7];
  if (fields.size() > 8) row.extra2 = v[8];
  if (fields.size() > 9) row.extra3 = v[9];
  return row;
}

// Shortest text that reads back as the same double.
void append_number(std::string& out, double v) {
  std::array<char, 32> buf{};
  const auto [ptr, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  out.append(buf.data(), ec == std::errc() ? ptr : buf.data());
}

}  // namespace

MotTable parse_mot_text(std::string_view text, const std::string& source) {
  MotTable table;
  table.source = source;
  for_each_line(text, [&](int number, std::string_view raw) {
    const std::string_view line = trim_space(raw);
    if (!line.empty()) table.rows.push_back(parse_row(split_fields(line), source, number));
  });
  return table;
}

MotTable read_mot_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw FailureError("cannot read the MOTChallenge file " + path.string() + ": " +
                       std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw FailureError("error while reading the MOTChallenge file " + path.string());
  return parse_mot_text(text.str(), path.string());
}

std::string format_mot_rows(const std::vector<MotRow>& rows) {
  std::string out;
  out.reserve(rows.size() * 48);
  for (const MotRow& r : rows) {
    out += std::to_string(r.frame);
    out += ',';
    out += std::to_string(r.id);
    for (double v : {r.x, r.y, r.w, r.h, r.conf, r.extra1, r.extra2, r.extra3}) {
      out += ',';
      append_number(out, v);
    }
    out += '\n';
  }
  return out;
}

void write_mot_file(const std::filesystem::path& path, const std::vector<MotRow>& rows) {
  write_file_atomically(path, format_mot_rows(rows));
}

SequenceInfo parse_sequence_info(std::string_view text, const std::string& source) {
  const IniText ini = parse_ini(text, source);
  const auto in_sequence = [](const IniEntry& e) { return e.section == "Sequence"; };
  if (!ini.entries.empty() && std::none_of(ini.entries.begin(), ini.entries.end(), in_sequence)) {
    // A file whose keys sit outside [Sequence] (its header missing or misspelt) would otherwise
    // be read as saying nothing, and the defaults blamed later.
    const IniEntry& e = ini.entries.front();
    throw UsageError(fmt::format(
        "{}: line {} says {}={} outside a [Sequence] section{}: MOTChallenge's keys go under a "
        "[Sequence] line",
        source, e.line, e.key, e.value,
        e.section.empty() ? "" : fmt::format(" (it is in [{}])", e.section)));
  }
  SequenceInfo info;
  for (const IniEntry& e : ini.entries) {
    if (!in_sequence(e)) continue;
    const auto number_of = [&](auto& out) {
      const auto [end, ec] = std::from_chars(e.value.data(), e.value.data() + e.value.size(), out);
      if (ec != std::errc() || end != e.value.data() + e.value.size())
        throw UsageError(fmt::format("{}: line {} says {}={}, which is not a number", source,
                                     e.line, e.key, e.value));
    };
    if (e.key == "name") info.name = e.value;
    if (e.key == "imDir" && !e.value.empty()) {
      info.im_dir = e.value;
      info.im_dir_line = e.line;
    }
    if (e.key == "imExt" && !e.value.empty()) info.im_ext = e.value;
    if (e.key == "frameRate") number_of(info.frame_rate);
    if (e.key == "seqLength") number_of(info.length);
  }
  return info;
}

SequenceInfo read_sequence_info(const std::filesystem::path& path) {
  std::string text;
  try {
    text = read_text_file(path, "seqinfo.ini");  // a byte-order mark and CRLF are fine
  } catch (const std::runtime_error& e) {
    throw FailureError(e.what());
  }
  return parse_sequence_info(text, path.string());
}

}  // namespace yolo::tracking
