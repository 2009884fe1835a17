// Small string helpers every front end needs: case folding for names and extensions, and the
// edit distance behind "did you mean" hints for mistyped keys, modes and options.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace yolo {

// ASCII lower case (names, extensions, schemes; not meant for user text).
std::string lower(std::string_view s);

// Edits between a and b: insert, delete, substitute, or swap two neighbours, each costing 1
// (optimal string alignment), so "iuo" is one edit from "iou" and "epocs" one from "epochs".
size_t edit_distance(std::string_view a, std::string_view b);

// Candidates close enough to `word` to be a plausible typo, best first (fewest edits, then the
// nearest in length), at most `max`.
// "Close enough": distance <= max(1, len(word) / 3) + 1, or one is a prefix of the other (for
// words of 3 or more characters).
std::vector<std::string> closest_matches(std::string_view word,
                                         const std::vector<std::string>& candidates, size_t max);

// `s` without the ASCII white space (space, tab, CR, VT, FF) at either end.
std::string_view trim_space(std::string_view s);

// Calls `line(number, text)` for each line of `text` (split at '\n', numbered from 1, without the
// '\n'; a last line without one counts too, an empty text has none): the line loop of the
// project's line-based readers (MOTChallenge rows, INI files).
void for_each_line(std::string_view text,
                   const std::function<void(int number, std::string_view line)>& line);

// The order a person reads numbered names in: runs of digits compare as numbers, so "2.jpg" comes
// before "10.jpg" (byte order puts "10.jpg" first); the rest compares byte by byte. Names equal
// but for the zero padding of a number ("01.jpg", "1.jpg") order by that padding, the shorter
// first, so the order is a strict weak order that separates every two different names.
bool natural_less(std::string_view a, std::string_view b);

}  // namespace yolo
