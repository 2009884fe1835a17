// One reading of whole numbers for every settings reader (#57): the accurate reason for text
// that is not a whole number in range ("too large" for too many digits, not "not a whole
// number").
#include <gtest/gtest.h>

#include <climits>
#include <string>

#include "yolo/core/whole_number.h"

using yolo::read_whole_number;

TEST(WholeNumber, ReadsWholeNumbersInEveryUsualForm) {
  EXPECT_EQ(read_whole_number("42", 0, 100).value, 42);
  EXPECT_EQ(read_whole_number(" -7 ", -10, 10).value, -7);
  EXPECT_EQ(read_whole_number("+3", 0, 10).value, 3);
  EXPECT_EQ(read_whole_number("1e3", 0, 10000).value, 1000);  // YAML and JSON floats
  EXPECT_EQ(read_whole_number("4.0", 0, 10).value, 4);
  EXPECT_EQ(read_whole_number("9223372036854775807", LLONG_MIN, LLONG_MAX).value, LLONG_MAX);
}

TEST(WholeNumber, TooManyDigitsAreTooLargeOrTooSmallNotNotWhole) {
  for (const std::string text : {"99999999999999999999", "1e30", "1000001"}) {
    const auto n = read_whole_number(text, 0, 1000000);
    EXPECT_FALSE(n.value) << text;
    EXPECT_EQ(n.problem, text + " is too large (at most 1000000)");
  }
  for (const std::string text : {"-99999999999999999999", "-1"}) {
    const auto n = read_whole_number(text, 0, 1000000);
    EXPECT_EQ(n.problem, text + " is too small (at least 0)") << text;
  }
  EXPECT_EQ(read_whole_number("99999999999999999999", LLONG_MIN, LLONG_MAX).problem,
            "99999999999999999999 is too large (at most 9223372036854775807)");
}

TEST(WholeNumber, WhatIsNoWholeNumberIsNamedSo) {
  for (const std::string text : {"2.5", "three", "", "12abc", "inf", "nan", "1.5e-3"}) {
    const auto n = read_whole_number(text, 0, 100);
    EXPECT_FALSE(n.value) << text;
    EXPECT_EQ(n.problem, "'" + text + "' is not a whole number") << text;
  }
}
