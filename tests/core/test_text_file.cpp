// Text files as editors write them (#57): one reading for labels, YAML and lists of files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "yolo/core/text_file.h"

namespace fs = std::filesystem;

namespace {

// `what` from a call that must throw std::runtime_error; empty when it did not.
template <typename F>
std::string error_of(F&& call) {
  try {
    call();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

fs::path write(const std::string& name, const std::string& bytes) {
  const fs::path p = fs::temp_directory_path() / ("yolo_text_file_" + name);
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

}  // namespace

// What Windows editors write: a byte-order mark and CRLF line ends read as plain UTF-8 text.
TEST(TextFile, ByteOrderMarkAndCrlfAreAccepted) {
  const yolo::EditorText t = yolo::editor_text(
      "\xEF\xBB\xBF"
      "0 0.5 0.5 0.2 0.2\r\n1 0.1 0.1 0.1 0.1\r\n");
  EXPECT_FALSE(t.invalid);
  EXPECT_EQ(t.text, "0 0.5 0.5 0.2 0.2\n1 0.1 0.1 0.1 0.1\n");
  // Only at the start is it a mark; a lone CR stays the line's text.
  EXPECT_EQ(yolo::editor_text("a\xEF\xBB\xBF").text, "a\xEF\xBB\xBF");
  EXPECT_EQ(yolo::editor_text("a\rb\r\n").text, "a\rb\n");
  EXPECT_EQ(yolo::editor_text("").text, "");
}

// Any other byte that is not UTF-8 is named by value, line and column as an editor shows them
// (the mark is no column).
TEST(TextFile, InvalidBytesAreNamedWhereAnEditorShowsThem) {
  const yolo::EditorText t = yolo::editor_text("\xEF\xBB\xBFname: x\r\nother: a\xFF");
  ASSERT_TRUE(t.invalid);
  EXPECT_EQ(t.invalid->byte, 0xFF);
  EXPECT_EQ(t.invalid->line, 2u);
  EXPECT_EQ(t.invalid->column, 9u);
  const std::string message = yolo::not_utf8_message("tracker YAML", "t.yaml", *t.invalid);
  EXPECT_EQ(message,
            "tracker YAML 't.yaml' is not UTF-8 text: byte 0xFF at line 2, column 9 (offset 16); "
            "save it as UTF-8");
  // Latin-1 and UTF-16, as other editors save.
  EXPECT_TRUE(yolo::editor_text("caf\xE9\n").invalid);
  EXPECT_TRUE(yolo::editor_text(std::string("\xFF\xFEn\0a\0", 6)).invalid);
}

// Files: the text, or an error that names the real problem.
TEST(TextFile, ReadingSaysWhatIsWrong) {
  const fs::path good = write("good.txt", "\xEF\xBB\xBFx\r\n");
  EXPECT_EQ(yolo::read_text_file(good, "list file"), "x\n");
  const fs::path bad = write("bad.txt", "ok\n\xC3(");
  EXPECT_NE(error_of([&] {
              yolo::read_text_file(bad, "list file");
            }).find("list file '" + bad.string() + "' is not UTF-8 text: byte 0xC3 at line 2"),
            std::string::npos);
  const fs::path missing = fs::temp_directory_path() / "yolo_text_file_missing.txt";
  fs::remove(missing);
  EXPECT_EQ(error_of([&] { yolo::read_text_file(missing, "list file"); }),
            "list file '" + missing.string() + "' does not exist");
  EXPECT_NE(error_of([&] {
              yolo::read_text_file(fs::temp_directory_path(), "list file");
            }).find("is a directory, not a file"),
            std::string::npos);
  fs::remove(good);
  fs::remove(bad);
}
