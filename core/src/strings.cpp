#include "yolo/core/strings.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <utility>

namespace yolo {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the table: the swap looks two rows back.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    before.swap(previous);
    previous.swap(row);
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min(
          {previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
  }
  return row[b.size()];
}

std::vector<std::string> closest_matches(std::string_view word,
                                         const std::vector<std::string>& candidates, size_t max) {
  const size_t limit = std::max<size_t>(1, word.size() / 3) + 1;
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(word, c);
    const bool prefix = word.size() >= 3 && (c.rfind(word, 0) == 0 || word.rfind(c, 0) == 0);
    if (d <= limit || prefix) scored.emplace_back(prefix ? std::min(d, limit) : d, c);
  }
  // Equally close: the one of the typed length first ("modle" is a swapped "model" more likely
  // than a "mode" with a stray letter), then the candidates' order.
  const auto length_gap = [&](const std::string& c) {
    return c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
  };
  std::stable_sort(scored.begin(), scored.end(), [&](const auto& x, const auto& y) {
    if (x.first != y.first) return x.first < y.first;
    return length_gap(x.second) < length_gap(y.second);
  });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < max; ++i) out.push_back(scored[i].second);
  return out;
}

std::string_view trim_space(std::string_view s) {
  const auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
  };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

void for_each_line(std::string_view text,
                   const std::function<void(int number, std::string_view line)>& line) {
  int number = 0;
  size_t start = 0;
  while (start < text.size()) {
    const size_t newline = text.find('\n', start);
    const size_t stop = newline == std::string_view::npos ? text.size() : newline;
    line(++number, text.substr(start, stop - start));
    start = stop + 1;
  }
}

bool natural_less(std::string_view a, std::string_view b) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  // Equal numbers written with other zero padding decide only when all else is equal.
  int padding = 0;  // < 0: a is padded less at the first such number
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      const size_t a_start = i, b_start = j;
      while (i < a.size() && digit(a[i])) ++i;
      while (j < b.size() && digit(b[j])) ++j;
      // Compared as numbers of any length: leading zeros off, then the longer is larger, then
      // digit by digit.
      std::string_view x = a.substr(a_start, i - a_start), y = b.substr(b_start, j - b_start);
      const std::string_view x_written = x, y_written = y;
      while (x.size() > 1 && x.front() == '0') x.remove_prefix(1);
      while (y.size() > 1 && y.front() == '0') y.remove_prefix(1);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      if (padding == 0 && x_written.size() != y_written.size())
        padding = x_written.size() < y_written.size() ? -1 : 1;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return padding < 0;
}

}  // namespace yolo
