// Reading the shell commands of the documentation: the fenced shell code blocks of README.md and
// docs/*.md as the logical lines a reader would type (continuations joined, here-documents kept
// with their bodies, `console` prompts stripped), and a logical line split into commands of words.
// Shared by test_docs (which parses every yolo-trainer command) and test_docs_run (which runs
// them).
#pragma once

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace yolo::testing::docs {

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

// README.md and docs/*.md of a source tree, README first, then the pages by name.
inline std::vector<std::filesystem::path> documentation_files(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> pages;
  for (const auto& entry : std::filesystem::directory_iterator(root / "docs")) {
    if (entry.path().extension() == ".md") pages.push_back(entry.path());
  }
  std::sort(pages.begin(), pages.end());
  pages.insert(pages.begin(), root / "README.md");
  return pages;
}

// Code blocks whose lines are shell commands. `console` blocks hold commands on "$ " lines and
// output on the others; other languages (text, yaml, json, ...) are never read as commands.
inline bool is_shell_block(const std::string& info) {
  static const std::set<std::string> shells = {"", "sh", "bash", "shell", "zsh", "console"};
  return shells.count(info) > 0;
}

// A code block's opening fence: its marker (``` or ~~~, as long as written) and the first word of
// its info string, lower-cased ("sh", "console"); nullopt for any other (trimmed) line.
struct Fence {
  std::string marker, info;
};
inline std::optional<Fence> opening_fence(const std::string& t) {
  if (t.rfind("```", 0) != 0 && t.rfind("~~~", 0) != 0) return std::nullopt;
  const size_t n = t.find_first_not_of(t[0]);
  Fence f;
  f.marker = t.substr(0, n);
  std::istringstream words(n == std::string::npos ? std::string() : t.substr(n));
  words >> f.info;
  std::transform(f.info.begin(), f.info.end(), f.info.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return f;
}

// One line as a reader types it.
struct ShellLine {
  std::string where;   // file:line of its first line
  std::string text;    // continuations joined with a space; a here-document keeps its lines
  int block = 0;       // index of its code block within the file
  std::string marker;  // "<!-- docs-test: ... -->" right above the block: its text after the colon
};

// The logical lines of every shell block of `markdown`, in order. Comment-only and blank lines are
// left out.
inline std::vector<ShellLine> shell_lines(const std::string& markdown, const std::string& file) {
  static const std::regex marker_re(R"(^<!--\s*docs-test:\s*(.*?)\s*-->$)");
  static const std::regex heredoc_re(R"(<<-?\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?)");
  std::vector<ShellLine> out;
  const std::vector<std::string> lines = split_lines(markdown);
  bool in_block = false;
  std::string fence, info, marker, previous;
  int block = -1;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string t = trim(lines[i]);
    if (!in_block) {
      if (const std::optional<Fence> opened = opening_fence(t)) {
        fence = opened->marker;
        info = opened->info;
        std::smatch m;
        marker = std::regex_match(previous, m, marker_re) ? m[1].str() : std::string();
        in_block = true;
        ++block;
      }
      if (!t.empty()) previous = t;
      continue;
    }
    if (t.rfind(fence, 0) == 0 && t.find_first_not_of(fence[0]) == std::string::npos) {
      in_block = false;
      previous.clear();
      continue;
    }
    if (!is_shell_block(info) || t.empty() || t[0] == '#') continue;
    const size_t first = i;
    std::string logical = t;
    while (!logical.empty() && logical.back() == '\\' && i + 1 < lines.size()) {
      logical.pop_back();
      logical += " " + trim(lines[++i]);
    }
    if (info == "console") {
      if (logical.rfind("$ ", 0) != 0) continue;
      logical = logical.substr(2);
    }
    std::smatch here;
    if (std::regex_search(logical, here, heredoc_re)) {
      const std::string word = here[1].str();
      while (i + 1 < lines.size()) {
        logical += "\n" + lines[++i];
        if (trim(lines[i]) == word) break;
      }
    }
    out.push_back({file + ":" + std::to_string(first + 1), logical, block, marker});
  }
  return out;
}

// Splits one logical shell line into commands (separated by |, ||, &&, ;, &) of words, with
// quotes and backslash escapes resolved, comments dropped and redirections (> f, 2>&1) removed.
inline std::vector<std::vector<std::string>> shell_commands(const std::string& line) {
  std::vector<std::vector<std::string>> commands(1);
  std::string word;
  bool in_word = false, skip_next_word = false;
  auto end_word = [&] {
    if (!in_word) return;
    if (skip_next_word) {
      skip_next_word = false;
    } else {
      commands.back().push_back(word);
    }
    word.clear();
    in_word = false;
  };
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\'' || c == '"') {
      const size_t close = line.find(c, i + 1);
      word += line.substr(i + 1, close == std::string::npos ? std::string::npos : close - i - 1);
      in_word = true;
      if (close == std::string::npos) break;
      i = close;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      end_word();
    } else if (c == '#' && !in_word) {
      break;  // comment
    } else if (c == '>' || c == '<') {
      // "2>" and "2>&1": the digits belong to the operator, the next word is its target.
      if (in_word && std::all_of(word.begin(), word.end(), [](char d) { return std::isdigit(d); }))
        word.clear(), in_word = false;
      end_word();
      while (i + 1 < line.size() && (line[i + 1] == '>' || line[i + 1] == '&')) ++i;
      skip_next_word = true;
      // "2>&1": the target is glued to the operator.
      if (i + 1 < line.size() && std::isdigit(static_cast<unsigned char>(line[i + 1]))) {
        while (i + 1 < line.size() && std::isdigit(static_cast<unsigned char>(line[i + 1]))) ++i;
        skip_next_word = false;
      }
    } else if (c == '|' || c == ';' || c == '&') {
      end_word();
      while (i + 1 < line.size() && (line[i + 1] == '|' || line[i + 1] == '&')) ++i;
      commands.emplace_back();
    } else {
      word += c;
      in_word = true;
    }
  }
  end_word();
  return commands;
}

}  // namespace yolo::testing::docs
