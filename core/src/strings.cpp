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

}  // namespace yolo
