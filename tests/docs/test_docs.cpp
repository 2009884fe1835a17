// The documentation against the code:
//  - every `yolo-trainer ...` command in a shell code block of README.md and docs/*.md parses with
//    the trainer's own command-line and settings code (known mode, real keys, values of the right
//    type, a device string the device grammar accepts);
//  - docs/cli.md lists every mode of the command line and documents exactly the keys of
//    config/default.yaml, each under its section with its default and type;
//  - relative links in README.md and docs/*.md point at files and headings that exist;
//  - every repository path README.md and docs/*.md name (in a code span, a link's text or a shell
//    code block: `tools/bench/bench_gst.cpp`, `config/default.yaml:12`, `yolo/core/device.h`)
//    exists in the source tree (docs/benchmarks-history.md is exempt: a dated journal names the
//    files as they were on its day).
// Each check is also run on an in-memory bad sample, so a check that can no longer fail is caught.
#include <fnmatch.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "doc_shell.h"
#include "yolo/core/device.h"
#include "yolo/trainer/settings/command_line.h"
#include "yolo/trainer/settings/config.h"

namespace fs = std::filesystem;

namespace {

namespace docs = yolo::testing::docs;
using docs::read_text;
using docs::split_lines;
using docs::trim;

const fs::path kSourceDir = YOLO_SOURCE_DIR;

// ---- extracting commands ---------------------------------------------------------------------

// A yolo-trainer command found in a code block.
struct DocCommand {
  std::string where;              // file:line of the command's first line
  std::string text;               // the logical shell line it came from
  std::vector<std::string> args;  // the words after `yolo-trainer`, quotes removed
};

bool is_trainer_word(const std::string& word) {
  return word == "yolo-trainer" ||
         (word.size() > 13 && word.compare(word.size() - 13, 13, "/yolo-trainer") == 0);
}

std::vector<DocCommand> extract_commands(const std::string& markdown, const std::string& file) {
  std::vector<DocCommand> out;
  for (const docs::ShellLine& line : docs::shell_lines(markdown, file)) {
    for (const auto& words : docs::shell_commands(line.text)) {
      auto it = std::find_if(words.begin(), words.end(), is_trainer_word);
      if (it == words.end()) continue;
      out.push_back({line.where, line.text, {it + 1, words.end()}});
    }
  }
  return out;
}

// ---- checking a command ----------------------------------------------------------------------

// Empty when `yolo-trainer <args>` would get past argument and settings checks (what main()
// rejects with exit code 2), otherwise why not. Files named by the command are not opened.
std::string check_command(const std::vector<std::string>& args, const yolo::ConfigSchema& schema) {
  try {
    const yolo::CommandLine cmd = yolo::parse_command_line(args);
    if (!cmd.warnings.empty()) {
      return "not in canonical form (yolo-trainer would warn: " + cmd.warnings.front() + ")";
    }
    if (!cmd.help && cmd.mode.empty() && !cmd.overrides.empty()) return "no mode given";
    yolo::Config cfg(schema);
    cfg.apply_text_overrides(cmd.overrides);
    yolo::parse_device(cfg.get_string("device"));
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

std::vector<fs::path> documentation_files() {
  return docs::documentation_files(kSourceDir);
}

yolo::ConfigSchema source_schema() {
  return yolo::ConfigSchema::parse(read_text(kSourceDir / "config" / "default.yaml"));
}

// ---- the key and mode tables of docs/cli.md --------------------------------------------------

// The text between <!-- NAME:begin --> and <!-- NAME:end -->; empty if the markers are missing.
std::string marked_region(const std::string& markdown, const std::string& name) {
  const std::string begin = "<!-- " + name + ":begin -->", end = "<!-- " + name + ":end -->";
  const size_t b = markdown.find(begin);
  const size_t e = markdown.find(end);
  if (b == std::string::npos || e == std::string::npos || e < b) return {};
  return markdown.substr(b + begin.size(), e - b - begin.size());
}

struct TableRow {
  std::string heading;             // the nearest "### " heading above the row
  std::vector<std::string> cells;  // trimmed, outer pipes removed
};

// Table rows whose first cell is a single `code` word (header and separator rows are skipped).
std::vector<TableRow> code_rows(const std::string& region) {
  std::vector<TableRow> rows;
  std::string heading;
  for (const std::string& raw : split_lines(region)) {
    const std::string line = trim(raw);
    if (line.rfind("### ", 0) == 0) heading = trim(line.substr(4));
    if (line.empty() || line.front() != '|') continue;
    TableRow row{heading, {}};
    std::string cell;
    for (size_t i = 1; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
        cell += '|', ++i;
      } else if (line[i] == '|') {
        row.cells.push_back(trim(cell)), cell.clear();
      } else {
        cell += line[i];
      }
    }
    static const std::regex code_word(R"(`[a-z][a-z0-9_]*`)");
    if (!row.cells.empty() && std::regex_match(row.cells[0], code_word)) rows.push_back(row);
  }
  return rows;
}

std::string unquote(const std::string& cell) {
  if (cell.size() >= 2 && cell.front() == '`' && cell.back() == '`')
    return cell.substr(1, cell.size() - 2);
  return cell;
}

// How docs/cli.md writes a key's type: "int", "bool or str", "int or list, optional".
std::string type_text(const yolo::KeySpec& spec) {
  std::string out;
  for (auto t : spec.types) out += (out.empty() ? "" : " or ") + std::string(yolo::to_string(t));
  return spec.optional ? out + ", optional" : out;
}

// The row docs/cli.md must have for a key (printed when it is missing or differs).
std::string expected_row(const yolo::KeySpec& spec) {
  const std::string def =
      spec.default_value.IsNull() ? "" : "`" + yolo::render_value(spec.default_value) + "`";
  return "| `" + spec.name + "` | " + def + " | " + type_text(spec) + " | " + spec.help + " |";
}

// Every difference between the key tables (columns: key, default, type, meaning; grouped under
// "### <section>" headings) and the schema; empty when they agree.
std::vector<std::string> check_key_tables(const std::string& region,
                                          const yolo::ConfigSchema& schema) {
  std::vector<std::string> problems;
  std::set<std::string> documented;
  for (const TableRow& row : code_rows(region)) {
    const std::string key = unquote(row.cells[0]);
    if (!documented.insert(key).second) problems.push_back("'" + key + "' is documented twice");
    const yolo::KeySpec* spec = schema.find(key);
    if (!spec) {
      problems.push_back("'" + key + "' is documented but is not a key of config/default.yaml");
      continue;
    }
    if (row.cells.size() != 4) {
      problems.push_back(
          "'" + key + "' row needs 4 cells (key, default, type, meaning): " + expected_row(*spec));
      continue;
    }
    const std::string want_default =
        spec->default_value.IsNull() ? "" : yolo::render_value(spec->default_value);
    if (unquote(row.cells[1]) != want_default)
      problems.push_back("'" + key + "' default is '" + unquote(row.cells[1]) +
                         "' in the docs but '" + want_default + "' in default.yaml");
    if (row.cells[2] != type_text(*spec))
      problems.push_back("'" + key + "' type is '" + row.cells[2] + "' in the docs but '" +
                         type_text(*spec) + "' in default.yaml");
    if (row.cells[3].empty()) problems.push_back("'" + key + "' has no meaning");
    if (row.heading != spec->section)
      problems.push_back("'" + key + "' is under '### " + row.heading +
                         "' but default.yaml has it in '" + spec->section + "'");
  }
  for (const auto& spec : schema.keys()) {
    if (!documented.count(spec.name))
      problems.push_back("'" + spec.name + "' is not documented; add under '### " + spec.section +
                         "': " + expected_row(spec));
  }
  return problems;
}

// Differences between the modes table and the modes the command line knows.
std::vector<std::string> check_mode_table(const std::string& region,
                                          const std::vector<std::string>& modes) {
  std::vector<std::string> problems;
  std::set<std::string> documented;
  for (const TableRow& row : code_rows(region)) documented.insert(unquote(row.cells[0]));
  for (const auto& m : modes) {
    if (!documented.count(m)) problems.push_back("mode '" + m + "' is not documented");
  }
  for (const auto& d : documented) {
    if (std::find(modes.begin(), modes.end(), d) == modes.end())
      problems.push_back("'" + d + "' is documented as a mode but yolo-trainer has no such mode");
  }
  return problems;
}

// GitHub's anchor for a heading: lower case, everything but letters, digits, spaces, '-' and '_'
// dropped, spaces turned into '-'.
std::string heading_anchor(const std::string& heading) {
  std::string out;
  for (unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_') {
      out += static_cast<char>(std::tolower(c));
    } else if (c == ' ') {
      out += '-';
    }
  }
  return out;
}

// Anchors of every heading outside code blocks.
std::set<std::string> anchors_of(const std::string& markdown) {
  std::set<std::string> anchors;
  bool in_block = false;
  for (const std::string& raw : split_lines(markdown)) {
    const std::string line = trim(raw);
    if (line.rfind("```", 0) == 0 || line.rfind("~~~", 0) == 0) in_block = !in_block;
    if (in_block || line.empty() || line.front() != '#') continue;
    const size_t text = line.find_first_not_of('#');
    if (text == std::string::npos || line[text] != ' ') continue;
    anchors.insert(heading_anchor(trim(line.substr(text))));
  }
  return anchors;
}

// Relative links in markdown ([text](target); URLs excluded) whose file does not exist relative
// to `dir`, or whose #anchor names no heading of the Markdown file it points at.
std::vector<std::string> broken_links(const std::string& markdown, const fs::path& dir) {
  std::vector<std::string> broken;
  static const std::regex link(R"(\]\(([^)\s]+)\))");
  for (auto it = std::sregex_iterator(markdown.begin(), markdown.end(), link);
       it != std::sregex_iterator(); ++it) {
    const std::string target = (*it)[1].str();
    if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0) continue;
    const size_t hash = target.find('#');
    const std::string file = target.substr(0, hash);
    if (!file.empty() && !fs::exists(dir / file)) {
      broken.push_back(target);
      continue;
    }
    if (hash == std::string::npos) continue;
    if (!file.empty() && fs::path(file).extension() != ".md") continue;
    const std::set<std::string> anchors =
        anchors_of(file.empty() ? markdown : read_text(dir / file));
    if (!anchors.count(target.substr(hash + 1))) broken.push_back(target);
  }
  return broken;
}

// ---- repository paths named by the docs ------------------------------------------------------
//
// A word names a repository path when, after trailing punctuation, a `#anchor` and a `:line` (or
// `:first-last`) suffix are cut and a leading `./` dropped, it contains a '/' and either starts
// with one of the source tree's top-level folders (`tools/test.sh`, `pipelines/gst/`) or is a
// public header's include path (`yolo/core/device.h`, found under any `include/` folder). Words
// with a glob or a placeholder (`*`, `?`, `[...]`, `{a,b}`, `<name>`, `...`, `$VAR`, `~`) name no
// one file and are not checked, nor are URLs, absolute paths and paths under the output folders
// (`build/bin/yolo-trainer`, `runs/detect/train`), which a reader's own run creates.

// The top-level folders of a source tree that hold sources: every folder there except .git and
// those the tree's own .gitignore ignores at the top (`/build*/`, `/runs/`, `/datasets/`: output).
std::set<std::string> source_folders(const fs::path& root) {
  std::vector<std::string> ignored = {".git"};
  for (std::string pattern : split_lines(read_text(root / ".gitignore"))) {
    pattern = trim(pattern);
    if (pattern.empty() || pattern[0] == '#' || pattern[0] == '!') continue;
    if (pattern.back() == '/') pattern.pop_back();
    if (!pattern.empty() && pattern[0] == '/') pattern.erase(0, 1);
    if (pattern.empty() || pattern.find('/') != std::string::npos) continue;  // not a top folder
    ignored.push_back(pattern);
  }
  std::set<std::string> folders;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    const bool output = std::any_of(ignored.begin(), ignored.end(), [&](const std::string& p) {
      return fnmatch(p.c_str(), name.c_str(), 0) == 0;
    });
    if (!output) folders.insert(name);
  }
  return folders;
}

// The `include/` folders under the source folders, where a public header's include path resolves.
std::vector<fs::path> include_folders(const fs::path& root, const std::set<std::string>& folders) {
  std::vector<fs::path> found;
  for (const std::string& folder : folders) {
    for (auto it = fs::recursive_directory_iterator(root / folder);
         it != fs::recursive_directory_iterator(); ++it) {
      if (it->is_directory() && it->path().filename() == "include") found.push_back(it->path());
    }
  }
  return found;
}

struct SourceTree {
  fs::path root;
  std::set<std::string> folders;
  std::vector<fs::path> includes;
  explicit SourceTree(const fs::path& r)
      : root(r), folders(source_folders(r)), includes(include_folders(r, folders)) {}
};

// The code spans of a paragraph with their offsets: a run of N backticks up to the next run of
// exactly N (as CommonMark reads them), so a span may cross a line break; an unclosed run is text.
std::vector<std::pair<size_t, std::string>> code_spans(const std::string& text) {
  auto run_at = [&](size_t i) {
    const size_t end = text.find_first_not_of('`', i);
    return (end == std::string::npos ? text.size() : end) - i;
  };
  std::vector<std::pair<size_t, std::string>> spans;
  size_t open = text.find('`');
  while (open != std::string::npos) {
    const size_t n = run_at(open);
    size_t close = text.find('`', open + n);
    while (close != std::string::npos && run_at(close) != n)
      close = text.find('`', close + run_at(close));
    if (close == std::string::npos) {
      open = text.find('`', open + n);
      continue;
    }
    spans.emplace_back(open + n, text.substr(open + n, close - open - n));
    open = text.find('`', close + n);
  }
  return spans;
}

// The words of a span, a link's text or a shell line, split where a path cannot go on.
std::vector<std::string> path_words(const std::string& text) {
  static const std::string separators = "=\"'(),;|&`";
  std::vector<std::string> words(1);
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) || separators.find(c) != std::string::npos) {
      if (!words.back().empty()) words.emplace_back();
    } else {
      words.back() += c;
    }
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

// A word of a doc that may name a path, and where it stands.
struct NamedWord {
  std::string where;  // file:line
  std::string word;
};

// Every word of the code spans and link texts of the prose, and of the shell code blocks (only
// the "$ " lines of a console block); other code blocks (YAML, JSON, output) are not read.
std::vector<NamedWord> named_words(const std::string& markdown, const std::string& file) {
  std::vector<NamedWord> out;
  auto add = [&](const std::string& text, size_t line) {
    for (const std::string& word : path_words(text))
      out.push_back({file + ":" + std::to_string(line), word});
  };
  // A paragraph (lines up to a blank line; each table row on its own) and its first line.
  std::string paragraph;
  size_t first_line = 0;
  auto flush = [&] {
    auto line_of = [&](size_t offset) {
      return first_line +
             static_cast<size_t>(std::count(paragraph.begin(), paragraph.begin() + offset, '\n'));
    };
    for (const auto& [offset, span] : code_spans(paragraph)) add(span, line_of(offset));
    static const std::regex link_text(R"(\[([^\]]*)\]\()");
    for (auto it = std::sregex_iterator(paragraph.begin(), paragraph.end(), link_text);
         it != std::sregex_iterator(); ++it)
      add((*it)[1].str(), line_of(static_cast<size_t>(it->position(1))));
    paragraph.clear();
  };
  const std::vector<std::string> lines = split_lines(markdown);
  bool in_block = false;
  std::string fence, info;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string t = trim(lines[i]);
    if (in_block) {
      if (t.rfind(fence, 0) == 0 && t.find_first_not_of(fence[0]) == std::string::npos) {
        in_block = false;
      } else if (docs::is_shell_block(info) && (info != "console" || t.rfind("$ ", 0) == 0)) {
        add(info == "console" ? t.substr(2) : t, i + 1);
      }
      continue;
    }
    if (const std::optional<docs::Fence> opened = docs::opening_fence(t)) {
      flush();
      fence = opened->marker;
      info = opened->info;
      in_block = true;
      continue;
    }
    if (t.empty() || t[0] == '|') flush();
    if (t.empty()) continue;
    if (paragraph.empty()) {
      first_line = i + 1;
    } else {
      paragraph += '\n';
    }
    paragraph += lines[i];
    if (t[0] == '|') flush();
  }
  flush();
  return out;
}

// The repository path a word names (see above), or empty when it names none to check.
std::string repo_path(std::string word, const SourceTree& tree) {
  static const std::regex line_suffix(R"(:[0-9]+(-[0-9]+)?$)");
  const size_t hash = word.find('#');
  if (hash != std::string::npos && hash > 0) word.erase(hash);
  while (!word.empty() && std::string(".,:;!?").find(word.back()) != std::string::npos)
    word.pop_back();
  word = std::regex_replace(word, line_suffix, "");
  if (word.rfind("./", 0) == 0) word.erase(0, 2);
  if (word.find('/') == std::string::npos || word.find("://") != std::string::npos ||
      word.find_first_of("*?[]{}<>$~") != std::string::npos ||
      word.find("...") != std::string::npos || word.find("\xE2\x80\xA6") != std::string::npos)
    return {};
  const std::string first = word.substr(0, word.find('/'));
  if (tree.folders.count(first)) return word;
  auto ends_with = [&](const std::string& end) {
    return word.size() >= end.size() &&
           word.compare(word.size() - end.size(), end.size(), end) == 0;
  };
  if (first == "yolo" && (ends_with(".h") || ends_with(".hpp") || ends_with("/")))
    return word;  // a public header or its folder, as #include names it
  return {};
}

bool path_exists(const std::string& path, const SourceTree& tree) {
  if (path.rfind("yolo/", 0) == 0 && !tree.folders.count("yolo")) {
    return std::any_of(tree.includes.begin(), tree.includes.end(),
                       [&](const fs::path& dir) { return fs::exists(dir / path); });
  }
  return fs::exists(tree.root / path);
}

// "file:line: `path`" for each repository path the page names that the tree does not have.
std::vector<std::string> missing_paths(const std::string& markdown, const std::string& file,
                                       const SourceTree& tree, int* checked = nullptr) {
  std::vector<std::string> missing;
  std::set<std::string> reported;
  for (const NamedWord& named : named_words(markdown, file)) {
    const std::string path = repo_path(named.word, tree);
    if (path.empty()) continue;
    if (checked) ++*checked;
    const std::string line = named.where + ": `" + path + "`";
    if (!path_exists(path, tree) && reported.insert(line).second) missing.push_back(line);
  }
  return missing;
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "  " + l + "\n";
  return out;
}

// ---- the checks on in-memory samples: each must be able to fail --------------------------------

TEST(ExtractCommands, FindsCommandsInShellBlocksOnly) {
  const std::string md =
      "Inline `yolo-trainer trian` is prose, not checked.\n"
      "```sh\n"
      "yolo-trainer train data=coco8.yaml epochs=3   # a comment epochs=x\n"
      "RANK=0 WORLD_SIZE=2 \\\n"
      "  build/bin/yolo-trainer val model=best.pt \\\n"
      "  conf=0.4\n"
      "yolo-trainer predict source='images/*.jpg' 2>&1 | tee log.txt\n"
      "tools/quickstart.sh && yolo-trainer checks > checks.txt\n"
      "```\n"
      "```text\n"
      "yolo-trainer train: train a detector\n"
      "```\n"
      "   ```console\n"
      "   $ yolo-trainer export model=best.pt\n"
      "   yolo-trainer output line\n"
      "   ```\n";
  const auto cmds = extract_commands(md, "sample.md");
  ASSERT_EQ(cmds.size(), 5u);
  EXPECT_EQ(cmds[0].args, (std::vector<std::string>{"train", "data=coco8.yaml", "epochs=3"}));
  EXPECT_EQ(cmds[0].where, "sample.md:3");
  EXPECT_EQ(cmds[1].args, (std::vector<std::string>{"val", "model=best.pt", "conf=0.4"}));
  EXPECT_EQ(cmds[1].where, "sample.md:4");
  EXPECT_EQ(cmds[2].args, (std::vector<std::string>{"predict", "source=images/*.jpg"}));
  EXPECT_EQ(cmds[3].args, (std::vector<std::string>{"checks"}));
  EXPECT_EQ(cmds[4].args, (std::vector<std::string>{"export", "model=best.pt"}));
}

TEST(CheckCommand, AcceptsValidCommands) {
  const yolo::ConfigSchema schema = source_schema();
  for (const std::vector<std::string>& ok : std::vector<std::vector<std::string>>{
           {},
           {"help"},
           {"train", "help"},
           {"checks"},
           {"detect", "train", "data=coco8.yaml", "model=yolo26n.yaml", "epochs=3", "amp=False"},
           {"train", "device=0,1", "imgsz=320", "cache"},
           {"predict", "source=rtsp://cam/live?a=b", "classes=[0,2]", "device=cuda:0"},
           {"export", "imgsz=[480,640]", "device=cpu"}}) {
    EXPECT_EQ(check_command(ok, schema), "") << ::testing::PrintToString(ok);
  }
}

TEST(CheckCommand, RejectsBadCommandsWithTheTrainersMessage) {
  const yolo::ConfigSchema schema = source_schema();
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"trian", "data=coco8.yaml"}, "did you mean 'train'"},  // unknown mode
      {{"train", "epoch=3"}, "did you mean 'epochs'"},         // unknown key
      {{"train", "epochs=ten"}, "'epochs=ten' is invalid"},    // wrong type
      {{"train", "amp=1"}, "must be true or false"},           // typed bools
      {{"train", "device=migraphx"}, "MIGraphX"},              // unsupported device
      {{"train", "device=cuda:x"}, "not a GPU index"},         // malformed device
      {{"data=coco8.yaml"}, "no mode given"},                  // no mode
      {{"segment", "train"}, "not supported"},                 // other task
      {{"train", "--epochs=3"}, "canonical form"},             // Ultralytics' leniency
  };
  for (const auto& [args, why] : bad) {
    const std::string problem = check_command(args, schema);
    EXPECT_NE(problem.find(why), std::string::npos)
        << ::testing::PrintToString(args) << " gave: '" << problem << "'";
  }
}

TEST(KeyTables, AgreeWithASchemaAndReportEveryDifference) {
  const yolo::ConfigSchema schema = yolo::ConfigSchema::parse(
      "# Train settings ------\n"
      "epochs: 100 # (int) number of epochs\n"
      "device: # (str | int, optional) cpu, 0\n"
      "# Hyperparameters -----\n"
      "lr0: 0.01 # (float) initial learning rate\n");
  const std::string good =
      "### Train settings\n"
      "| key | default | type | meaning |\n|---|---|---|---|\n"
      "| `epochs` | `100` | int | epochs to train |\n"
      "| `device` |  | str or int, optional | `cpu`, `0`, `0,1` |\n"
      "### Hyperparameters\n"
      "| `lr0` | `0.01` | float | initial learning rate |\n";
  EXPECT_EQ(join(check_key_tables(good, schema)), "");

  const std::string bad =
      "### Train settings\n"
      "| `epochs` | `10` | int | wrong default |\n"   // default differs
      "| `epochs` | `100` | int | twice |\n"          // duplicate
      "| `lr0` | `0.01` | float | wrong section |\n"  // section differs
      "| `epoch` | `100` | int | not a key |\n"       // invented key
      "| `device` | | str | type differs |\n";        // type differs
  const std::string problems = join(check_key_tables(bad, schema));
  for (const char* want :
       {"'epochs' default is '10'", "'epochs' is documented twice", "'lr0' is under",
        "'epoch' is documented but is not a key", "'device' type is 'str'"})
    EXPECT_NE(problems.find(want), std::string::npos) << want << "\n" << problems;
  // A key added to the schema but not to the docs.
  const std::string missing =
      join(check_key_tables("### Train settings\n"
                            "| `epochs` | `100` | int | e |\n",
                            schema));
  EXPECT_NE(missing.find("'device' is not documented"), std::string::npos) << missing;
  EXPECT_NE(missing.find("| `lr0` | `0.01` | float | initial learning rate |"), std::string::npos)
      << missing;
}

TEST(ModeTable, ReportsMissingAndInventedModes) {
  const std::string region = "| `train` | x |\n| `fly` | y |\n";
  const std::string problems = join(check_mode_table(region, {"train", "val"}));
  EXPECT_NE(problems.find("mode 'val' is not documented"), std::string::npos) << problems;
  EXPECT_NE(problems.find("'fly' is documented as a mode"), std::string::npos) << problems;
  EXPECT_EQ(join(check_mode_table(region, {"train", "fly"})), "");
}

TEST(Links, ReportsMissingFilesAndAnchors) {
  const std::string md =
      "# Top\n## Exit codes\n### `checks` mode (CPU)\n```sh\n# not a heading\n```\n"
      "[a](training.md) [b](nowhere.md#x) [c](https://example.com/x.md) [d](#exit-codes)\n"
      "[e](#checks-mode-cpu) [f](#not-a-heading) [g](#missing) [h](training.md#the-run-folder)\n"
      "[i](training.md#no-such-section)\n";
  EXPECT_EQ(broken_links(md, kSourceDir / "docs"),
            (std::vector<std::string>{"nowhere.md#x", "#not-a-heading", "#missing",
                                      "training.md#no-such-section"}));
}

TEST(RepoPaths, SourceFoldersLeaveOutWhatGitignoreIgnores) {
  const fs::path root =
      fs::temp_directory_path() / ("test_docs_folders_" + std::to_string(getpid()));
  fs::remove_all(root);
  for (const char* dir :
       {"core", "tools", ".ci", ".git", "build", "build-asan", "runs", "datasets"})
    fs::create_directories(root / dir);
  std::ofstream(root / ".gitignore") << "# output\n/build*/\n/runs/\ndatasets/\n*.swp\n"
                                     << "tools/bench/out/\n!keep/\n";
  std::ofstream(root / "README.md") << "not a folder\n";
  EXPECT_EQ(source_folders(root), (std::set<std::string>{".ci", "core", "tools"}));
  fs::remove_all(root);
}

TEST(RepoPaths, CodeSpansPairBackticksAcrossLines) {
  const std::string text = "a `one` b ``two `x` y`` c `three\nfour` d ` e";
  const auto spans = code_spans(text);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].second, "one");
  EXPECT_EQ(spans[1].second, "two `x` y");
  EXPECT_EQ(spans[2].second, "three\nfour");
}

TEST(RepoPaths, ReportsMissingPathsAndOnlyThose) {
  const SourceTree tree(kSourceDir);
  ASSERT_TRUE(tree.folders.count("tools") && tree.folders.count("docs"));
  EXPECT_FALSE(tree.folders.count("build") || tree.folders.count("runs") ||
               tree.folders.count(".git"));
  const std::string md =
      "# Sample\n"
      "Exist: `tools/test.sh`, `config/default.yaml:3`, `tests/docs/test_docs.cpp:10-20`,\n"
      "`docs/cli.md#keys`, `./tools/test.sh`, `tools/` and `yolo/core/device.h`; `yolo-trainer\n"
      "train cfg=config/default.yaml` across a line break, [`tests/docs/`](../tests/docs).\n"
      "Missing: `tools/no_such_tool.sh`, `core/no_such.h` and `yolo/core/no_such.h`.\n"
      "\n"
      "| `docs/no_such_page.md` | in a table |\n"
      "\n"
      "Not checked: `build/bin/no_such`, `runs/detect/no_such/best.pt`, `tools/*.sh`,\n"
      "`models/cfg/<name>.yaml`, `tools/.../x.sh`, `$OUT/tools/x`, `/opt/yolo-edge/no_such`,\n"
      "`https://example.com/tools/x`, `a/b`, `yolov8{n,s}.yaml`, `../shared/no_such.md`,\n"
      "`yolo/no_such.json` (a checkpoint's archive member, not a header).\n"
      "[link text naming tools/no_such_link.sh](https://example.com)\n"
      "```sh\n"
      "tools/no_such_script.sh --out runs/x && build/bin/yolo-trainer checks\n"
      "yolo-trainer predict source=tests/no_such_folder/ model=best.pt\n"
      "```\n"
      "```yaml\n"
      "model: tools/not_read_in_yaml.pt\n"
      "```\n"
      "```console\n"
      "$ tools/test.sh -L unit\n"
      "tools/output_line_not_read.txt\n"
      "```\n";
  int checked = 0;
  EXPECT_EQ(missing_paths(md, "sample.md", tree, &checked),
            (std::vector<std::string>{
                "sample.md:5: `tools/no_such_tool.sh`", "sample.md:5: `core/no_such.h`",
                "sample.md:5: `yolo/core/no_such.h`", "sample.md:7: `docs/no_such_page.md`",
                "sample.md:13: `tools/no_such_link.sh`", "sample.md:15: `tools/no_such_script.sh`",
                "sample.md:16: `tests/no_such_folder/`"}));
  EXPECT_EQ(checked, 18);  // the 11 that exist (`tests/docs/` twice: span and link text) and 7
}

// ---- the real documentation ---------------------------------------------------------------------

TEST(Documentation, EveryTrainerCommandInTheDocsIsValid) {
  const yolo::ConfigSchema schema = source_schema();
  std::map<std::string, int> per_file;
  std::string failures;
  for (const fs::path& file : documentation_files()) {
    const std::string name = fs::relative(file, kSourceDir).string();
    for (const DocCommand& cmd : extract_commands(read_text(file), name)) {
      ++per_file[name];
      const std::string problem = check_command(cmd.args, schema);
      if (!problem.empty()) failures += cmd.where + ": `" + cmd.text + "`\n    " + problem + "\n";
    }
  }
  for (const auto& [name, count] : per_file) std::cout << name << ": " << count << " commands\n";
  EXPECT_EQ(failures, "");
  // The extractor must keep finding the commands these pages are built around.
  for (const char* page : {"README.md", "docs/cli.md", "docs/training.md", "docs/predict.md",
                           "docs/rocm.md", "docs/troubleshooting.md"})
    EXPECT_GE(per_file[page], 1) << page << " has no yolo-trainer command in a shell block";
  EXPECT_GE(per_file["docs/cli.md"], static_cast<int>(yolo::known_modes().size()))
      << "docs/cli.md should show every mode in a shell block";
}

TEST(Documentation, CliReferenceDocumentsExactlyTheKeysOfDefaultYaml) {
  const std::string cli = read_text(kSourceDir / "docs" / "cli.md");
  const std::string keys = marked_region(cli, "keys");
  ASSERT_FALSE(keys.empty()) << "docs/cli.md lacks <!-- keys:begin --> ... <!-- keys:end -->";
  EXPECT_EQ(join(check_key_tables(keys, source_schema())), "");
}

TEST(Documentation, CliReferenceListsEveryMode) {
  const std::string cli = read_text(kSourceDir / "docs" / "cli.md");
  const std::string modes = marked_region(cli, "modes");
  ASSERT_FALSE(modes.empty()) << "docs/cli.md lacks <!-- modes:begin --> ... <!-- modes:end -->";
  EXPECT_EQ(join(check_mode_table(modes, yolo::known_modes())), "");
}

TEST(Documentation, EveryRepositoryPathTheDocsNameExists) {
  const SourceTree tree(kSourceDir);
  std::string failures;
  int checked = 0;
  for (const fs::path& file : documentation_files()) {
    const std::string name = fs::relative(file, kSourceDir).string();
    if (name == "docs/benchmarks-history.md") continue;  // a dated journal: the paths of its day
    for (const std::string& line : missing_paths(read_text(file), name, tree, &checked))
      failures += line + "\n";
  }
  std::cout << checked << " repository paths named by the docs\n";
  EXPECT_EQ(failures, "") << "rename them to the file's path now (git log --follow finds a move)";
  EXPECT_GE(checked, 200) << "the check no longer finds the paths the docs name";
}

TEST(Documentation, RelativeLinksInDocsResolve) {
  for (const fs::path& file : documentation_files()) {
    EXPECT_EQ(broken_links(read_text(file), file.parent_path()), std::vector<std::string>{})
        << file;
  }
}

}  // namespace
