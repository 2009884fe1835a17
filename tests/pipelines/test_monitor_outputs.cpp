// Outputs that persist: the JSON-lines writer (one result per line, rotation by size, many
// threads, flush on close), the streams state file (atomic, re-read at start) and the
// sd_notify datagrams a systemd manager would receive.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "test_files.h"
#include "yolo/monitor/jsonl_writer.h"
#include "yolo/monitor/sd_notify.h"
#include "yolo/monitor/snapshot_archive.h"
#include "yolo/monitor/stream_state_file.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using yolo::testing::read_file;
using yolo::testing::TempDir;

namespace {

std::vector<json> read_lines(const fs::path& p) {
  std::vector<json> out;
  std::ifstream in(p);
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

yolo::FrameResult result(const std::string& stream, int64_t frame) {
  yolo::FrameResult r;
  r.stream_id = stream;
  r.frame = frame;
  r.width = 64;
  r.height = 48;
  r.detections = {{1, 2, 30, 40, 0.75f, 0, "person"}};
  return r;
}

yolo::monitor::StreamConfig stream(const std::string& id, const std::string& uri) {
  return yolo::monitor::stream_from_json({{"id", id}, {"uri", uri}});
}

std::vector<std::string> ids(const std::vector<yolo::monitor::StreamConfig>& streams) {
  std::vector<std::string> out;
  for (const auto& s : streams) out.push_back(s.id);
  return out;
}

}  // namespace

// Each write is one complete line of the result's JSON, readable before close (flushed).
TEST(JsonlWriter, OneResultPerLineFlushed) {
  TempDir dir("jsonl_lines");
  const fs::path path = dir.path / "out" / "results.jsonl";
  yolo::monitor::JsonlWriter writer({path, 0, 3});
  writer.write(result("cam1", 7));
  writer.write(result("cam2", 8));
  auto lines = read_lines(path);  // before close: every line already reached the file
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], yolo::to_json(result("cam1", 7)));
  EXPECT_EQ(lines[1]["stream_id"], "cam2");
  EXPECT_EQ(lines[1]["detections"][0]["class_name"], "person");
  writer.close();
  EXPECT_THROW(writer.write(result("cam1", 9)), std::runtime_error);
  // A new writer appends to what is there.
  yolo::monitor::JsonlWriter again({path, 0, 3});
  again.write(json{{"k", 1}});
  EXPECT_EQ(read_lines(path).size(), 3u);
}

// Rotation keeps at most max_bytes per file, shifts .1 -> .2 ..., drops beyond keep_files, and
// loses no line that is kept.
TEST(JsonlWriter, RotatesBySizeKeepingN) {
  TempDir dir("jsonl_rotate");
  const fs::path path = dir.path / "r.jsonl";
  // Two-digit n: every line has the same length.
  const std::string line = json{{"n", 10}, {"pad", std::string(80, 'x')}}.dump() + "\n";
  const uint64_t max = 3 * line.size();  // three lines per file
  {
    yolo::monitor::JsonlWriter writer({path, max, 2});
    for (int n = 10; n < 24; ++n) writer.write(json{{"n", n}, {"pad", std::string(80, 'x')}});
    EXPECT_EQ(writer.rotations(), 4u);  // files of 3,3,3,3 and the current one with 2
  }
  EXPECT_FALSE(fs::exists(path.string() + ".3"));
  auto current = read_lines(path);
  auto one = read_lines(path.string() + ".1");
  auto two = read_lines(path.string() + ".2");
  ASSERT_EQ(current.size(), 2u);
  ASSERT_EQ(one.size(), 3u);
  ASSERT_EQ(two.size(), 3u);
  EXPECT_EQ(two[0]["n"], 16);  // oldest kept
  EXPECT_EQ(one[0]["n"], 19);
  EXPECT_EQ(current[1]["n"], 23);  // newest
  for (const auto& f : {path, fs::path(path.string() + ".1"), fs::path(path.string() + ".2")}) {
    EXPECT_LE(fs::file_size(f), max) << f;
  }
}

// Lines written from many threads at once never interleave.
TEST(JsonlWriter, ThreadSafe) {
  TempDir dir("jsonl_threads");
  const fs::path path = dir.path / "t.jsonl";
  constexpr int kThreads = 4, kLines = 250;
  {
    yolo::monitor::JsonlWriter writer({path, 16 * 1024, 100});
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kLines; ++i) writer.write(result("cam" + std::to_string(t), i));
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(writer.lines_written(), uint64_t(kThreads * kLines));
  }
  std::set<std::string> seen;
  for (const auto& entry : fs::directory_iterator(dir.path)) {
    for (const auto& j : read_lines(entry.path())) {  // parse fails on an interleaved line
      seen.insert(j["stream_id"].get<std::string>() + "/" + std::to_string(j["frame"].get<int>()));
    }
  }
  EXPECT_EQ(seen.size(), size_t(kThreads * kLines));
}

TEST(JsonlWriter, BadPathsAreClearErrors) {
  EXPECT_THROW(yolo::monitor::JsonlWriter({"", 0, 1}), std::invalid_argument);
  try {
    yolo::monitor::JsonlWriter w({"/proc/no/such/dir/r.jsonl", 0, 1});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/proc/no/such/dir/r.jsonl"), std::string::npos);
  }
}

// Streams added and removed at run time survive a restart, applied over the configured ones.
TEST(StreamStateFile, PersistsAndReapplies) {
  TempDir dir("state_file");
  const fs::path path = dir.path / "state" / "streams.json";
  const std::vector<yolo::monitor::StreamConfig> configured = {stream("cam1", "rtsp://a/1"),
                                                               stream("cam2", "rtsp://a/2")};
  {
    yolo::monitor::StreamStateFile state(path);  // no file yet: nothing changes
    EXPECT_EQ(ids(state.apply(configured)), (std::vector<std::string>{"cam1", "cam2"}));
    state.record_added(stream("cam3", "/dev/video0"));
    state.record_removed("cam1", true);
    state.record_added(stream("cam2", "rtsp://b/2"));  // replaces the configured cam2
    state.record_added(stream("tmp", "/x.mp4"));
    state.record_removed("tmp", false);  // added then removed: forgotten
  }
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
  const json doc = json::parse(read_file(path));
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["removed"], json::array({"cam1"}));

  yolo::monitor::StreamStateFile reread(path);  // a restart
  const auto streams = reread.apply(configured);
  EXPECT_EQ(ids(streams), (std::vector<std::string>{"cam2", "cam3"}));
  EXPECT_EQ(streams[0].uri, "rtsp://b/2");
  EXPECT_EQ(streams[1].kind, yolo::monitor::SourceKind::kV4l2);
  // Re-adding a removed configured stream brings it back.
  reread.record_added(stream("cam1", "rtsp://c/1"));
  EXPECT_TRUE(yolo::monitor::StreamStateFile(path).removed().empty());
}

// A corrupt state file is an error naming the file, not silently an empty state.
TEST(StreamStateFile, CorruptFileIsAnError) {
  TempDir dir("state_corrupt");
  const fs::path path = dir.path / "streams.json";
  yolo::testing::write_file(path, "{not json");
  EXPECT_THROW(yolo::monitor::StreamStateFile{path}, yolo::monitor::ConfigError);
  yolo::testing::write_file(
      path, R"({"version": 1, "added": [{"id": "x", "uri": "ftp://y"}], "removed": []})");
  try {
    yolo::monitor::StreamStateFile state(path);
    FAIL();
  } catch (const yolo::monitor::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos);
    ASSERT_EQ(e.problems().size(), 1u);
    EXPECT_EQ(e.problems()[0].path, "added[0].uri");
  }
}

// READY=1, WATCHDOG=1, STATUS=, STOPPING=1 arrive as datagrams on the notify socket; without a
// socket every call is a no-op.
TEST(SystemdNotifier, SendsDatagrams) {
  TempDir dir("sd_notify");
  const std::string path = (dir.path / "notify.sock").string();
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  const auto receive = [&] {
    char buf[512];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
  };

  yolo::monitor::SystemdNotifier notifier(path, std::chrono::microseconds(4000000));
  EXPECT_TRUE(notifier.enabled());
  EXPECT_TRUE(notifier.ready());
  EXPECT_EQ(receive(), "READY=1");
  EXPECT_TRUE(notifier.watchdog());
  EXPECT_EQ(receive(), "WATCHDOG=1");
  EXPECT_TRUE(notifier.status("2 streams\nrunning"));
  EXPECT_EQ(receive(), "STATUS=2 streams running");
  EXPECT_TRUE(notifier.stopping());
  EXPECT_EQ(receive(), "STOPPING=1");
  EXPECT_EQ(notifier.watchdog_period(), std::chrono::microseconds(2000000));
  ::close(fd);

  yolo::monitor::SystemdNotifier off("");
  EXPECT_FALSE(off.enabled());
  EXPECT_FALSE(off.ready());
  EXPECT_FALSE(off.watchdog_period());
  // A socket nobody listens on: false, no exception.
  EXPECT_FALSE(yolo::monitor::SystemdNotifier(path).ready());
}

// Saved snapshots: one per interval per stream, named by time, the oldest pruned beyond
// keep_per_stream, streams independent.
TEST(SnapshotArchive, IntervalAndRetention) {
  using namespace std::chrono_literals;
  TempDir dir("snapshot_archive");
  yolo::monitor::SnapshotArchive archive({dir.path / "snaps", 10s, 3});
  const std::vector<unsigned char> jpeg = {0xff, 0xd8, 0xff, 0xd9};
  const auto t0 = std::chrono::steady_clock::time_point(1000s);
  const auto wall0 = std::chrono::system_clock::time_point(1790000000s);  // 2026-09-21
  EXPECT_TRUE(archive.due("cam1", t0));
  const auto first = archive.save("cam1", jpeg, wall0, t0);
  EXPECT_EQ(first, dir.path / "snaps" / "cam1" / "20260921T141320.000Z.jpg");
  EXPECT_EQ(read_file(first), std::string("\xff\xd8\xff\xd9", 4));
  EXPECT_FALSE(archive.due("cam1", t0 + 9s));
  EXPECT_TRUE(archive.due("cam1", t0 + 10s));
  EXPECT_TRUE(archive.due("cam2", t0 + 1s));  // another stream has its own timer
  for (int i = 1; i <= 4; ++i) archive.save("cam1", jpeg, wall0 + i * 10s, t0 + i * 10s);
  archive.save("cam2", jpeg, wall0, t0);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path / "snaps" / "cam1")) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"20260921T141340.000Z.jpg", "20260921T141350.000Z.jpg",
                                             "20260921T141400.000Z.jpg"}));
  EXPECT_TRUE(fs::exists(dir.path / "snaps" / "cam2" / "20260921T141320.000Z.jpg"));
  archive.forget("cam1");
  EXPECT_TRUE(archive.due("cam1", t0 + 41s));
  EXPECT_THROW(archive.save("../x", jpeg, wall0, t0), std::invalid_argument);
  EXPECT_THROW(yolo::monitor::SnapshotArchive({"", 10s, 3}), std::invalid_argument);
  EXPECT_THROW(yolo::monitor::SnapshotArchive({dir.path, 10s, 0}), std::invalid_argument);
}

// The watchdog pinger sends WATCHDOG=1 repeatedly while healthy, none while unhealthy, and
// nothing at all without a watchdog.
TEST(SystemdNotifier, WatchdogPinger) {
  TempDir dir("sd_watchdog");
  const std::string path = (dir.path / "notify.sock").string();
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  timeval timeout{0, 300000};  // 0.3 s: several ping periods
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  const auto count_pings = [&] {
    int n = 0;
    char buf[64];
    for (ssize_t got; (got = ::recv(fd, buf, sizeof buf, 0)) > 0;) {
      if (std::string(buf, static_cast<size_t>(got)) == "WATCHDOG=1") ++n;
    }
    return n;
  };
  const std::chrono::microseconds watchdog(40000);  // pings every 20 ms
  {
    yolo::monitor::WatchdogPinger pinger(yolo::monitor::SystemdNotifier(path, watchdog));
    EXPECT_TRUE(pinger.running());
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
  }
  EXPECT_GE(count_pings(), 2);
  {
    yolo::monitor::WatchdogPinger unhealthy(yolo::monitor::SystemdNotifier(path, watchdog),
                                            [] { return false; });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(count_pings(), 0);
  yolo::monitor::WatchdogPinger none{yolo::monitor::SystemdNotifier(path)};
  EXPECT_FALSE(none.running());
  ::close(fd);
}
