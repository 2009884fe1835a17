#include "yolo/core/whole_number.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace yolo {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool all_digits(std::string_view s) {
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) s.remove_prefix(1);
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

std::string out_of_range_problem(std::string_view text, long double value, long long min,
                                 long long max) {
  if (value > max) return fmt::format("{} is too large (at most {})", text, max);
  return fmt::format("{} is too small (at least {})", text, min);
}

WholeNumber read_whole_number(std::string_view text, long long min, long long max) {
  const std::string_view t = trim(text);
  const std::string s(t);
  WholeNumber out;
  if (all_digits(t)) {
    // strtold keeps the sign and magnitude of digits too long for long long.
    errno = 0;
    const long long v = std::strtoll(s.c_str(), nullptr, 10);
    const long double magnitude = std::strtold(s.c_str(), nullptr);
    if (errno == ERANGE || v < min || v > max) {
      out.problem = out_of_range_problem(t, magnitude, min, max);
      return out;
    }
    out.value = v;
    return out;
  }
  char* end = nullptr;
  const long double d = s.empty() ? 0 : std::strtold(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(d) || std::floor(d) != d) {
    out.problem = fmt::format("'{}' is not a whole number", t);
    return out;
  }
  if (d < static_cast<long double>(min) || d > static_cast<long double>(max)) {
    out.problem = out_of_range_problem(t, d, min, max);
    return out;
  }
  out.value = static_cast<long long>(d);
  return out;
}

}  // namespace yolo
