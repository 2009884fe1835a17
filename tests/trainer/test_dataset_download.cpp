// Dataset `download:` URLs against a local HTTP server on 127.0.0.1: download and unpack (both
// archive layouts), missing URL, HTTP errors, broken connections, zip-slip, and no request when
// the dataset is already there. Every failure must leave nothing behind.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "test_files.h"
#include "yolo/trainer/data/dataset_download.h"

namespace fs = std::filesystem;
using yolo::DatasetError;

namespace {

using yolo::testing::TempDir;

void write(const fs::path& p, const std::string& text) {
  yolo::testing::write_file(p, text);
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Names in a folder, sorted, to assert that nothing was left behind.
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

struct ZipDiscard {
  void operator()(zip_t* z) const { zip_discard(z); }
};

// A zip archive built with libzip from (entry name, content) pairs; names ending in '/' are
// folders. Returned as bytes, ready to serve.
std::string make_zip(const fs::path& scratch,
                     const std::vector<std::pair<std::string, std::string>>& entries) {
  const fs::path file = scratch / "archive.zip";
  int err = 0;
  std::unique_ptr<zip_t, ZipDiscard> z(zip_open(file.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err));
  EXPECT_TRUE(z) << "zip_open error " << err;
  for (const auto& [name, content] : entries) {
    if (!name.empty() && name.back() == '/') {
      EXPECT_GE(zip_dir_add(z.get(), name.c_str(), ZIP_FL_ENC_UTF_8), 0) << name;
      continue;
    }
    // The source only borrows the bytes; `entries` outlives zip_close below.
    zip_source_t* src = zip_source_buffer(z.get(), content.data(), content.size(), 0);
    EXPECT_NE(src, nullptr);
    if (zip_file_add(z.get(), name.c_str(), src, ZIP_FL_ENC_UTF_8) < 0) {
      zip_source_free(src);  // ownership passes to the archive only on success
      ADD_FAILURE() << "zip_file_add " << name << ": " << zip_strerror(z.get());
    }
  }
  EXPECT_EQ(zip_close(z.get()), 0) << zip_strerror(z.get());
  (void)z.release();  // zip_close freed it
  std::string bytes = read(file);
  fs::remove(file);
  return bytes;
}

// The tiny dataset every test uses, optionally inside one top-level folder.
std::vector<std::pair<std::string, std::string>> tiny_dataset(const std::string& prefix = "") {
  return {{prefix + "images/val/a.jpg", std::string(2000, 'j')},
          {prefix + "images/val/b.jpg", std::string(3000, 'k')},
          {prefix + "labels/val/a.txt", "0 0.5 0.5 0.2 0.2\n"},
          {prefix + "labels/val/b.txt", ""}};
}

// httplib::Server on 127.0.0.1 (any free port) in its own thread; counts requests.
class LocalServer {
 public:
  LocalServer() {
    // Counted before routing, so that unrouted (404) requests count too and the count is final
    // before the client sees the response.
    server_.set_pre_routing_handler([this](const httplib::Request&, httplib::Response&) {
      ++requests;
      return httplib::Server::HandlerResponse::Unhandled;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 500 && !server_.is_running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  ~LocalServer() {
    server_.stop();
    thread_.join();
  }
  httplib::Server& server() { return server_; }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  std::atomic<int> requests{0};

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

// A dataset YAML under `dir/cfg/` whose root is `dir/datasets/<name>`.
yolo::DatasetConfig dataset_yaml(const fs::path& dir, const std::string& name,
                                 const std::string& download) {
  std::ostringstream y;
  y << "path: " << (dir / "datasets" / name).string() << "\n"
    << "train: images/val\nval: images/val\nnames: [thing]\n";
  if (!download.empty()) y << "download: " << download << "\n";
  write(dir / "cfg" / "data.yaml", y.str());
  return yolo::load_dataset_config(dir / "cfg" / "data.yaml");
}

// Fast failures: the server is local, so nothing needs long timeouts or backoffs.
yolo::DownloadOptions quick(int retries = 0) {
  yolo::DownloadOptions o;
  o.timeout_s = 5;
  o.retries = retries;
  o.backoff_ms = 10;
  o.progress = false;
  return o;
}

std::string ensure_error(const yolo::DatasetConfig& cfg, const yolo::DownloadOptions& opts) {
  try {
    yolo::ensure_dataset(cfg, opts);
  } catch (const DatasetError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// A zip holding `tiny/...` (the root's name, coco8.zip style) is unpacked so that the root
// appears; the archive is deleted and no temporaries remain.
TEST(DatasetDownload, DownloadsAndUnpacksTopFolderArchive) {
  TempDir d("topfolder");
  LocalServer srv;
  const std::string zip = make_zip(d.path, tiny_dataset("tiny/"));
  srv.server().Get("/tiny.zip", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(zip, "application/zip");
  });
  const auto cfg = dataset_yaml(d.path, "tiny", srv.url("/tiny.zip"));
  ASSERT_FALSE(yolo::dataset_present(cfg));

  yolo::DownloadOptions opts = quick();
  opts.progress = true;  // a bar on a terminal, log lines otherwise: both paths must work
  yolo::ensure_dataset(cfg, opts);
  EXPECT_TRUE(yolo::dataset_present(cfg));
  EXPECT_EQ(read(d.path / "datasets/tiny/labels/val/a.txt"), "0 0.5 0.5 0.2 0.2\n");
  EXPECT_EQ(fs::file_size(d.path / "datasets/tiny/images/val/b.jpg"), 3000u);
  EXPECT_EQ(listing(d.path / "datasets"), std::vector<std::string>{"tiny"});
  EXPECT_EQ(listing(d.path / "datasets/tiny"), (std::vector<std::string>{"images", "labels"}));
  EXPECT_EQ(srv.requests, 1);
}

// A zip holding `images/...` directly is unpacked into the root; a redirect is followed.
TEST(DatasetDownload, DownloadsFlatArchiveThroughRedirect) {
  TempDir d("flat");
  LocalServer srv;
  const std::string zip = make_zip(d.path, tiny_dataset());
  srv.server().Get("/moved.zip", [&](const httplib::Request&, httplib::Response& res) {
    res.set_redirect("/files/tiny.zip");
  });
  srv.server().Get("/files/tiny.zip", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(zip, "application/zip");
  });
  const auto cfg = dataset_yaml(d.path, "tiny", srv.url("/moved.zip"));
  yolo::ensure_dataset(cfg, quick());
  EXPECT_TRUE(yolo::dataset_present(cfg));
  EXPECT_EQ(listing(d.path / "datasets"), std::vector<std::string>{"tiny"});
}

// Without a download: URL the error names the missing path, the YAML, and the missing URL.
TEST(DatasetDownload, MissingWithoutUrlNamesThePath) {
  TempDir d("nourl");
  const auto cfg = dataset_yaml(d.path, "tiny", "");
  const std::string err = ensure_error(cfg, quick());
  EXPECT_NE(err.find((d.path / "datasets/tiny/images/val").string()), std::string::npos) << err;
  EXPECT_NE(err.find("data.yaml"), std::string::npos) << err;
  EXPECT_NE(err.find("val=images/val"), std::string::npos) << err;
  EXPECT_NE(err.find("no download: URL"), std::string::npos) << err;
}

// HTTP 404: the error names the URL and the status; one request (a 404 is not retried) and
// nothing left behind.
TEST(DatasetDownload, NotFoundLeavesNothingBehind) {
  TempDir d("404");
  LocalServer srv;
  const auto cfg = dataset_yaml(d.path, "tiny", srv.url("/missing.zip"));
  const std::string err = ensure_error(cfg, quick(2));
  EXPECT_NE(err.find(srv.url("/missing.zip")), std::string::npos) << err;
  EXPECT_NE(err.find("404"), std::string::npos) << err;
  EXPECT_EQ(srv.requests, 1);
  EXPECT_TRUE(listing(d.path / "datasets").empty());
  EXPECT_FALSE(fs::exists(d.path / "datasets/tiny"));
}

// HTTP 503 is retried (1 + retries requests), then fails naming the status.
TEST(DatasetDownload, ServerErrorIsRetried) {
  TempDir d("503");
  LocalServer srv;
  srv.server().Get("/tiny.zip",
                   [&](const httplib::Request&, httplib::Response& res) { res.status = 503; });
  const auto cfg = dataset_yaml(d.path, "tiny", srv.url("/tiny.zip"));
  const std::string err = ensure_error(cfg, quick(2));
  EXPECT_NE(err.find("503"), std::string::npos) << err;
  EXPECT_NE(err.find("3 attempts"), std::string::npos) << err;
  EXPECT_EQ(srv.requests, 3);
  EXPECT_TRUE(listing(d.path / "datasets").empty());
}

// The server announces the full length, sends half and drops the connection: an error after
// the retries, and neither the dataset root nor any temporary exists.
TEST(DatasetDownload, DroppedConnectionLeavesNothingBehind) {
  TempDir d("drop");
  LocalServer srv;
  const std::string zip = make_zip(d.path, tiny_dataset("tiny/"));
  std::atomic<int> attempts{0};
  srv.server().Get("/tiny.zip", [&](const httplib::Request&, httplib::Response& res) {
    ++attempts;
    res.set_content_provider(zip.size(), "application/zip",
                             [&](size_t offset, size_t, httplib::DataSink& sink) {
                               if (offset > 0) return false;  // drop after the first half
                               sink.write(zip.data(), zip.size() / 2);
                               return true;
                             });
  });
  const auto cfg = dataset_yaml(d.path, "tiny", srv.url("/tiny.zip"));
  const std::string err = ensure_error(cfg, quick(1));
  EXPECT_NE(err.find(srv.url("/tiny.zip")), std::string::npos) << err;
  EXPECT_EQ(attempts, 2);
  EXPECT_FALSE(fs::exists(d.path / "datasets/tiny"));
  EXPECT_TRUE(listing(d.path / "datasets").empty());
}

// Nothing listens on the port: connection refused is reported with the URL.
TEST(DatasetDownload, ConnectionRefused) {
  TempDir d("refused");
  std::string url;
  {
    LocalServer srv;  // take a free port, then close it again
    url = srv.url("/tiny.zip");
  }
  const auto cfg = dataset_yaml(d.path, "tiny", url);
  const std::string err = ensure_error(cfg, quick(1));
  EXPECT_NE(err.find(url), std::string::npos) << err;
  EXPECT_NE(err.find("cannot connect"), std::string::npos) << err;
  EXPECT_TRUE(listing(d.path / "datasets").empty());
}

// Zip-slip: an archive with a `../evil` entry is refused before anything is written.
TEST(DatasetDownload, RejectsEntriesOutsideTheTarget) {
  TempDir d("zipslip");
  LocalServer srv;
  auto entries = tiny_dataset();
  entries.push_back({"../evil", "pwned"});
  entries.push_back({"images/../../../evil2", "pwned"});
  const std::string zip = make_zip(d.path, entries);
  srv.server().Get("/tiny.zip", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(zip, "application/zip");
  });
  const auto cfg = dataset_yaml(d.path, "tiny", srv.url("/tiny.zip"));
  const std::string err = ensure_error(cfg, quick());
  EXPECT_NE(err.find("../evil"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(d.path / "evil"));
  EXPECT_FALSE(fs::exists(d.path / "datasets/evil"));
  EXPECT_FALSE(fs::exists(d.path.parent_path() / "evil2"));
  EXPECT_FALSE(fs::exists(d.path / "datasets/tiny"));
  EXPECT_TRUE(listing(d.path / "datasets").empty());
}

// An archive that does not contain the YAML's paths fails before anything lands at the root.
TEST(DatasetDownload, ArchiveWithoutThePathsFails) {
  TempDir d("wronglayout");
  LocalServer srv;
  const std::string zip = make_zip(d.path, tiny_dataset("other-name/"));
  srv.server().Get("/tiny.zip", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(zip, "application/zip");
  });
  const auto cfg = dataset_yaml(d.path, "tiny", srv.url("/tiny.zip"));
  const std::string err = ensure_error(cfg, quick());
  EXPECT_NE(err.find("other-name/"), std::string::npos) << err;
  EXPECT_TRUE(listing(d.path / "datasets").empty());
}

// A body that is not a zip archive is reported as such and removed.
TEST(DatasetDownload, NotAZipArchive) {
  TempDir d("notzip");
  LocalServer srv;
  srv.server().Get("/tiny.zip", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content("<html>login required</html>", "text/html");
  });
  const auto cfg = dataset_yaml(d.path, "tiny", srv.url("/tiny.zip"));
  const std::string err = ensure_error(cfg, quick());
  EXPECT_NE(err.find("not a usable zip"), std::string::npos) << err;
  EXPECT_TRUE(listing(d.path / "datasets").empty());
}

// A download: that is not an http(s) URL (Ultralytics also allows scripts) is a clear error.
TEST(DatasetDownload, RejectsNonHttpUrl) {
  TempDir d("ftp");
  const auto cfg = dataset_yaml(d.path, "tiny", "ftp://127.0.0.1/tiny.zip");
  const std::string err = ensure_error(cfg, quick());
  EXPECT_NE(err.find("not an http(s) URL"), std::string::npos) << err;
}

// A dataset that is already there: ensure_dataset returns without a single request.
TEST(DatasetDownload, PresentDatasetMakesNoRequest) {
  TempDir d("present");
  LocalServer srv;
  srv.server().Get("/tiny.zip", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content("unused", "application/zip");
  });
  write(d.path / "datasets/tiny/images/val/a.jpg", "j");
  const auto cfg = dataset_yaml(d.path, "tiny", srv.url("/tiny.zip"));
  EXPECT_TRUE(yolo::dataset_present(cfg));
  yolo::ensure_dataset(cfg, quick());
  EXPECT_EQ(srv.requests, 0);
}

// The root folder already exists (here holding only the YAML, `path: .` style): the archive's
// contents are merged into it.
TEST(DatasetDownload, MergesIntoExistingRoot) {
  TempDir d("merge");
  LocalServer srv;
  const std::string zip = make_zip(d.path, tiny_dataset());
  srv.server().Get("/tiny.zip", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(zip, "application/zip");
  });
  write(d.path / "ds/data.yaml", "path: .\ntrain: images/val\nval: images/val\nnames: [thing]\n" +
                                     std::string("download: ") + srv.url("/tiny.zip") + "\n");
  const auto cfg = yolo::load_dataset_config(d.path / "ds/data.yaml");
  yolo::ensure_dataset(cfg, quick());
  EXPECT_TRUE(yolo::dataset_present(cfg));
  EXPECT_EQ(listing(d.path / "ds"), (std::vector<std::string>{"data.yaml", "images", "labels"}));
  EXPECT_EQ(listing(d.path), std::vector<std::string>{"ds"});
}
