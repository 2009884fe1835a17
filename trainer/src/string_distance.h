// Edit distance, for "did you mean" suggestions on unknown keys and modes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace yolo {

// Levenshtein distance (insert, delete, substitute; each costs 1).
size_t edit_distance(std::string_view a, std::string_view b);

// Candidates close enough to `word` to be a plausible typo, best first, at most `max`.
// "Close enough": distance <= max(1, len(word) / 3) + 1, or one is a prefix of the other.
std::vector<std::string> closest_matches(std::string_view word,
                                         const std::vector<std::string>& candidates, size_t max);

}  // namespace yolo
