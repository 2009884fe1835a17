// The UTF-8 check names the byte that starts the invalid sequence (not the one after it) at the
// line and column an editor shows, for every kind of invalid sequence; the escaped form is valid.
#include <gtest/gtest.h>

#include <string>

#include "yolo/core/utf8.h"

using yolo::find_invalid_utf8;

TEST(Utf8, ValidTextHasNoProblem) {
  EXPECT_FALSE(find_invalid_utf8(""));
  EXPECT_FALSE(find_invalid_utf8("plain ascii\nand a second line"));
  EXPECT_FALSE(find_invalid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF"));
  EXPECT_FALSE(find_invalid_utf8("\xED\x9F\xBF"));  // U+D7FF, just below the surrogates
}

TEST(Utf8, NamesTheFirstBadByteAtItsLineAndColumn) {
  auto w = find_invalid_utf8(
      "ab\xFF"
      "c");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->offset, 2u);
  EXPECT_EQ(w->byte, 0xFF);
  EXPECT_EQ(w->line, 1u);
  EXPECT_EQ(w->column, 3u);
  EXPECT_EQ(yolo::describe(*w), "byte 0xFF at line 1, column 3 (offset 2)");

  // Columns count characters: the two-byte e-acute before it is one column.
  w = find_invalid_utf8("x: 1\nname: \xC3\xA9t\xE9\n");  // Latin-1 e-acute on line 2
  ASSERT_TRUE(w);
  EXPECT_EQ(w->line, 2u);
  EXPECT_EQ(w->column, 9u);
  EXPECT_EQ(w->offset, 14u);
  EXPECT_EQ(w->byte, 0xE9);
}

TEST(Utf8, EveryKindOfInvalidSequenceIsFound) {
  const struct {
    const char* text;
    size_t offset;
  } cases[] = {
      {"a\x80", 1},              // continuation byte without a lead
      {"a\xC0\xAF", 1},          // overlong two-byte form
      {"a\xC1\xBF", 1},          // overlong two-byte form
      {"a\xE0\x80\xAF", 1},      // overlong three-byte form
      {"a\xF0\x80\x80\xAF", 1},  // overlong four-byte form
      {"a\xED\xA0\x80", 1},      // a UTF-16 surrogate
      {"a\xF4\x90\x80\x80", 1},  // above U+10FFFF
      {"a\xF5\x80\x80\x80", 1},  // lead byte that never occurs
      {"a\xC3"
       "b",
       1},                    // cut short by an ASCII byte
      {"a\xE2\x82", 1},       // cut short by the end
      {"ok\xF0\x9F\x98", 2},  // cut short by the end, four-byte form
  };
  for (const auto& c : cases) {
    const auto w = find_invalid_utf8(c.text);
    ASSERT_TRUE(w) << c.text;
    EXPECT_EQ(w->offset, c.offset) << yolo::escape_invalid_utf8(c.text);
  }
}

TEST(Utf8, EscapingKeepsValidTextAndWritesBadBytesAsHex) {
  EXPECT_EQ(yolo::escape_invalid_utf8("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(yolo::escape_invalid_utf8("a\xFF"
                                      "b\xC3"),
            "a\\xFFb\\xC3");
  EXPECT_FALSE(find_invalid_utf8(yolo::escape_invalid_utf8("\xC0\xAF\xED\xA0\x80 x")));
}
