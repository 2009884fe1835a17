// The dataset YAML (Ultralytics' check_det_dataset) and file discovery.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "yolo/core/strings.h"
#include "yolo/core/text_file.h"
#include "yolo/core/utf8.h"
#include "yolo/trainer/data/dataset.h"

namespace yolo {
namespace fs = std::filesystem;

bool is_image_file(const fs::path& p) {
  static const std::set<std::string> exts = {"avif", "bmp",      "dng", "heic", "jp2",
                                             "jpeg", "jpeg2000", "jpg", "mpo",  "png",
                                             "tif",  "tiff",     "webp"};
  std::string e = p.extension().string();
  if (e.empty()) return false;
  return exts.count(lower(std::string_view(e).substr(1))) > 0;
}

fs::path label_path_for(const fs::path& image) {
  // Replace the LAST "images" folder component with "labels".
  std::vector<fs::path> parts(image.begin(), image.end());
  for (size_t i = parts.size(); i-- > 1;) {  // never the file name itself
    if (i + 1 < parts.size() && parts[i] == "images") {
      parts[i] = "labels";
      break;
    }
  }
  fs::path out;
  for (const auto& p : parts) out /= p;
  return out.replace_extension(".txt");
}

namespace {

// Far above any real label set (LVIS has 1203 classes); a guard against typos and overflow.
constexpr long long kMaxClasses = 100000;

// An integer entry, refused with the key and the accepted range (yaml-cpp alone says only "bad
// conversion" for 99999999999999999999 or "three").
int int_entry(const YAML::Node& node, const std::string& what, long long lo, long long hi,
              const std::string& where) {
  long long v = 0;
  if (!node.IsScalar() || !YAML::convert<long long>::decode(node, v) || v < lo || v > hi) {
    throw DatasetError(fmt::format(
        "{}: {} must be a whole number from {} to {} (it is {})", where, what, lo, hi,
        node.IsScalar() ? "'" + node.Scalar() + "'" : std::string("a list or mapping")));
  }
  return static_cast<int>(v);
}

// The YAML's root mapping, after the checks that need no key: it exists, is a file, is UTF-8,
// parses and is a mapping.
YAML::Node read_dataset_yaml(const fs::path& yaml) {
  if (!fs::exists(yaml)) {
    throw DatasetError(
        fmt::format("dataset YAML '{}' does not exist; give data=path/to/data.yaml "
                    "(`yolo-trainer synth` writes a synthetic one)",
                    yaml.string()));
  }
  if (fs::is_directory(yaml)) {
    const fs::path inside = yaml / "data.yaml";
    throw DatasetError(fmt::format("data='{}' is a folder; give its dataset YAML{}", yaml.string(),
                                   fs::exists(inside)
                                       ? fmt::format(", e.g. data={}", inside.string())
                                       : std::string(" (a file listing train, val and names)")));
  }
  // Class names and paths go into checkpoints, JSON results and plots: UTF-8 only.
  std::string text;
  try {
    text = read_text_file(yaml, "dataset YAML");
  } catch (const std::runtime_error& e) {
    throw DatasetError(e.what());
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw DatasetError(fmt::format("dataset YAML '{}' is not valid YAML: {} (line {})",
                                   yaml.string(), e.msg, e.mark.line + 1));
  }
  if (!root.IsMap())
    throw DatasetError(fmt::format("dataset YAML '{}' must be a mapping", yaml.string()));
  return root;
}

// names: a list or {id: name} without gaps; or nc alone (class0, class1, ...). nc must agree with
// names when both are given.
void read_class_names(const YAML::Node& root, const std::string& where, DatasetConfig& cfg) {
  if (const YAML::Node names = root["names"]; names && !names.IsNull()) {
    if (names.IsSequence()) {
      for (size_t i = 0; i < names.size(); ++i)
        cfg.names[static_cast<int>(i)] = names[i].as<std::string>();
    } else if (names.IsMap()) {
      for (const auto& kv : names)
        cfg.names[int_entry(kv.first, "a class id in names", 0, kMaxClasses - 1, where)] =
            kv.second.as<std::string>();
      for (int i = 0; i < static_cast<int>(cfg.names.size()); ++i) {
        if (!cfg.names.count(i)) {
          throw DatasetError(
              fmt::format("{}: names must number the classes 0..{} without gaps "
                          "(class {} is missing)",
                          where, cfg.names.size() - 1, i));
        }
      }
    } else {
      throw DatasetError(fmt::format("{}: names must be a list or a mapping id: name", where));
    }
    cfg.nc = static_cast<int>(cfg.names.size());
    if (root["nc"] && int_entry(root["nc"], "nc", 1, kMaxClasses, where) != cfg.nc) {
      throw DatasetError(fmt::format("{}: nc is {} but names lists {} classes; make them agree",
                                     where, root["nc"].Scalar(), cfg.nc));
    }
  } else if (root["nc"]) {
    cfg.nc = int_entry(root["nc"], "nc", 1, kMaxClasses, where);
    for (int i = 0; i < cfg.nc; ++i) cfg.names[i] = fmt::format("class{}", i);
  } else {
    throw DatasetError(fmt::format("{} has neither names nor nc", where));
  }
  if (cfg.nc < 1) throw DatasetError(fmt::format("{}: there must be at least one class", where));
}

// path: relative to the YAML's folder; if not there, to datasets_dir (where a download goes).
fs::path dataset_root(const YAML::Node& root, const fs::path& yaml, const fs::path& datasets_dir) {
  const fs::path yaml_dir = fs::absolute(yaml).parent_path();
  const fs::path p = root["path"] && !root["path"].IsNull()
                         ? fs::path(root["path"].as<std::string>())
                         : fs::path();
  fs::path out;
  if (p.empty()) {
    out = yaml_dir;
  } else if (p.is_absolute()) {
    out = p;
  } else if (fs::exists(yaml_dir / p)) {
    out = (yaml_dir / p).lexically_normal();
  } else {
    out = fs::absolute(datasets_dir / p).lexically_normal();
  }
  if (out.filename().empty()) out = out.parent_path();  // "dir/." -> "dir"
  return out;
}

// train, val and test: a path or a list of paths each, relative to the dataset root.
void read_splits(const YAML::Node& root, DatasetConfig& cfg) {
  for (const char* split : {"train", "val", "test"}) {
    const YAML::Node n = root[split];
    if (!n || n.IsNull()) continue;
    std::vector<fs::path> sources;
    auto add = [&](const std::string& s) {
      fs::path q(s);
      sources.push_back(q.is_absolute() ? q : (cfg.root / q).lexically_normal());
    };
    if (n.IsSequence()) {
      for (const auto& item : n) add(item.as<std::string>());
    } else {
      add(n.as<std::string>());
    }
    cfg.splits[split] = sources;
  }
}

}  // namespace

DatasetConfig load_dataset_config(const fs::path& yaml, const fs::path& datasets_dir) {
  DatasetConfig cfg;
  cfg.yaml_path = yaml;
  YAML::Node root = read_dataset_yaml(yaml);
  const std::string where = fmt::format("dataset YAML '{}'", yaml.string());
  try {
    if (root["validation"] && !root["val"]) root["val"] = root["validation"];
    for (const char* key : {"train", "val"}) {
      if (!root[key] || root[key].IsNull()) {
        throw DatasetError(
            fmt::format("{} has no '{}' key; it needs train, val and names (or nc)", where, key));
      }
    }
    read_class_names(root, where, cfg);
    if (root["channels"]) cfg.channels = int_entry(root["channels"], "channels", 1, 64, where);
    if (root["download"] && root["download"].IsScalar())
      cfg.download = root["download"].as<std::string>();
    cfg.root = dataset_root(root, yaml, datasets_dir);
    read_splits(root, cfg);
  } catch (const YAML::Exception& e) {
    throw DatasetError(fmt::format("{}: {} (line {})", where, e.msg, e.mark.line + 1));
  }
  return cfg;
}

std::vector<fs::path> list_images(const std::vector<fs::path>& sources) {
  std::vector<fs::path> out;
  for (const fs::path& src : sources) {
    std::error_code ec;
    if (fs::is_directory(src, ec)) {
      for (auto it = fs::recursive_directory_iterator(
               src, fs::directory_options::skip_permission_denied, ec);
           it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        if (it->is_regular_file(ec) && is_image_file(it->path())) out.push_back(it->path());
      }
    } else if (fs::is_regular_file(src, ec) && src.extension() == ".txt") {
      std::istringstream in;
      try {  // a byte-order mark and CRLF line ends as editors write them (core/text_file.h)
        in.str(read_text_file(src, "image list"));
      } catch (const std::runtime_error& e) {
        throw DatasetError(e.what());
      }
      const fs::path parent = src.parent_path();
      for (std::string line; std::getline(in, line);) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        if (line.empty()) continue;
        fs::path p = line.rfind("./", 0) == 0 ? parent / line.substr(2) : fs::path(line);
        if (p.is_relative() && !fs::exists(p) && fs::exists(parent / p)) p = parent / p;
        if (is_image_file(p)) out.push_back(p.lexically_normal());
      }
    } else if (fs::is_regular_file(src, ec) && is_image_file(src)) {
      out.push_back(src);
    } else {
      throw DatasetError(
          fmt::format("dataset images '{}' do not exist (not a folder, a .txt list or "
                      "an image)",
                      src.string()));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace yolo
