// The one INI reading (seqinfo.ini): sections, keys, comments, and every way a file can say
// something unclear refused with its line quoted.
#include <gtest/gtest.h>

#include <string>

#include "yolo/core/error.h"
#include "yolo/core/ini_text.h"
#include "yolo/core/text_file.h"

namespace {

// The message parse_ini throws for `text`, or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    yolo::parse_ini(yolo::editor_text(text).text, "seq/seqinfo.ini");
  } catch (const yolo::UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(IniText, SectionsKeysAndCommentsAsEditorsSaveThem) {
  // A byte-order mark, CRLF line ends, spaces around '=', comments, a key above any section.
  const std::string bytes =
      "\xEF\xBB\xBF; written on Windows\r\ntop = 1\r\n[Sequence]\r\nname = MOT17-04 \r\n"
      "# a comment\r\nimDir=img1\r\n\r\n[Other]\r\nname=x\r\n";
  const yolo::IniText ini = yolo::parse_ini(yolo::editor_text(bytes).text, "seqinfo.ini");
  ASSERT_EQ(ini.entries.size(), 4u);
  EXPECT_EQ(ini.sections, (std::vector<std::string>{"Sequence", "Other"}));
  const yolo::IniEntry* name = ini.find("Sequence", "name");
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name->value, "MOT17-04");
  EXPECT_EQ(name->line, 4);
  EXPECT_EQ(ini.find("", "top")->value, "1");
  EXPECT_EQ(ini.find("Other", "name")->value, "x");  // the same key in another section is fine
  EXPECT_EQ(ini.find("Sequence", "imExt"), nullptr);
}

TEST(IniText, WhatIsUnclearIsRefusedWithItsLineQuoted) {
  struct Case {
    const char* text;
    const char* must_say;
  };
  for (const Case& c : {
           Case{"[Sequence]\nimDir=img1\nimDir=frames\n",
                "imDir is given twice in [Sequence] "
                "(lines 2 and 3)"},
           Case{"top=1\ntop=2\n", "top is given twice (lines 1 and 2)"},
           Case{"[Sequence]\nimDir img1\n", "line 2 says 'imDir img1', which is neither"},
           Case{"[Sequence\nimDir=img1\n", "line 1 says '[Sequence': a section line is [name]"},
           Case{"[]\n", "line 1 says '[]'"},
           Case{"[Sequence]\n=img1\n", "line 2 says '=img1': the key before '=' is missing"},
       }) {
    const std::string message = error_of(c.text);
    EXPECT_NE(message.find("seq/seqinfo.ini: "), std::string::npos) << c.text << "\n" << message;
    EXPECT_NE(message.find(c.must_say), std::string::npos) << c.text << "\n" << message;
  }
  // A very long line is quoted in part.
  const std::string message = error_of(std::string(500, 'x') + "\n");
  EXPECT_NE(message.find("...'"), std::string::npos) << message;
  EXPECT_LT(message.size(), 300u) << message;
}
