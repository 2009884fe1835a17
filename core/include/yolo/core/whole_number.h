// Whole numbers as people write them in YAML, JSON and on command lines, with the accurate
// reason when text is not one in range: a number too large for its range is "too large", not
// "not a whole number" (issue #57). One reading for every reader of settings (trainer config,
// tracker YAML, monitor config, model metadata), so that the same mistake gets the same words.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace yolo {

struct WholeNumber {
  std::optional<long long> value;  // set when the text is a whole number in range
  // Otherwise why not, naming the text: "'three' is not a whole number", "'2.5' is not a whole
  // number", "99999999999999999999 is too large (at most 1000000)", "-1 is too small (at
  // least 0)".
  std::string problem;
};

// Reads decimal digits with an optional sign, or a number in any form strtod takes (1e3, 4.0)
// whose value is whole; leading and trailing blanks are ignored.
WholeNumber read_whole_number(std::string_view text, long long min, long long max);

// The reason a value already known to be whole but outside [min, max] is refused, as above.
std::string out_of_range_problem(std::string_view text, long double value, long long min,
                                 long long max);

}  // namespace yolo
