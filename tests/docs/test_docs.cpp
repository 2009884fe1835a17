// The documentation against the code:
//  - every `yolo-trainer ...` command in a shell code block of README.md and docs/*.md parses with
//    the trainer's own command-line and settings code (known mode, real keys, values of the right
//    type, a device string the device grammar accepts);
//  - docs/cli.md lists every mode of the command line and documents exactly the keys of
//    config/default.yaml, each under its section with its default and type;
//  - relative links in README.md and docs/*.md point at files and headings that exist.
// Each check is also run on an in-memory bad sample, so a check that can no longer fail is caught.
#include <gtest/gtest.h>

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

TEST(Documentation, RelativeLinksInDocsResolve) {
  for (const fs::path& file : documentation_files()) {
    EXPECT_EQ(broken_links(read_text(file), file.parent_path()), std::vector<std::string>{})
        << file;
  }
}

}  // namespace
