// The GPU proof, rehearsed on the CPU (issue #67): tools/gpu-check.sh --rehearse makes the bundle
// (programs built here, the libraries the GPU machine lacks, Ultralytics' wheels, real photos)
// and runs its proof, tools/gpu-proof.sh, end to end in a fresh Debian 12 root that holds only
// what the GPU machine holds (Python with torch 2.11 and the image's Python packages), with tiny
// sizes and device=cpu. Every step must pass there; the same bundle less one library must fail
// its libraries step; and the bundle with the repository must fit what one device call carries.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "run_command.h"

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kDeviceCallLimit = 64ull << 20;  // what one device call carries

std::string tail(const std::string& s, size_t n = 8000) {
  return s.size() > n ? s.substr(s.size() - n) : s;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

}  // namespace

TEST(GpuRehearsal, TheBundleRunsEveryStepInARootLikeTheGpuMachine) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (mmdebstrap and chroot make the fresh root)";
  const auto oracle =
      yolo::testing::run_command(std::string(YOLO_TEST_PYTHON) + " -c 'import ultralytics' 2>&1");
  if (oracle.exit_code != 0) {
    GTEST_SKIP() << "the bundle carries the oracle's Ultralytics: tools/install-deps.sh --oracle";
  }
  const fs::path bundle = fs::path(YOLO_BINARY_DIR) / "gpu-bundle";
  const fs::path out = fs::path(YOLO_BINARY_DIR) / "gpu-rehearsal";
  fs::remove_all(out);
  fs::create_directories(out);
  const auto r =
      yolo::testing::run_command("cd '" + std::string(YOLO_SOURCE_DIR) + "' && BUILD_DIR='" +
                                 std::string(YOLO_BINARY_DIR) + "' BUNDLE='" + bundle.string() +
                                 "' OUT='" + out.string() + "' tools/gpu-check.sh --rehearse 2>&1");
  // One message naming every step that did not pass, and the output's tail once.
  std::string missing;
  for (const char* step :
       {"libraries", "gpu-tests", "gpu-tests-rehearsal", "train yolov8n amp=True",
        "train yolov8n amp=False", "train yolo26n amp=True", "train yolo26n amp=False", "inference",
        "predict", "ultralytics", "element", "latency"}) {
    if (r.output.find(std::string("gpu-proof: PASS ") + step) == std::string::npos) {
      missing += std::string(missing.empty() ? "" : ", ") + step;
    }
  }
  EXPECT_TRUE(r.exit_code == 0 && missing.empty())
      << "exit code " << r.exit_code
      << "; steps that did not pass: " << (missing.empty() ? "none" : missing) << "\n"
      << tail(r.output);
  EXPECT_EQ(r.output.find("gpu-proof: FAIL"), std::string::npos) << tail(r.output);
  EXPECT_NE(r.output.find("gpu-check: PASS fault"), std::string::npos)
      << "a missing library was not caught:\n"
      << tail(r.output);

  // The report is written, and the bundle says what it holds.
  const std::string report = read(out / "gpu-proof.md");
  EXPECT_NE(report.find("| train yolo26n amp=True | PASS |"), std::string::npos) << report;
  const std::string manifest = read(bundle / "MANIFEST.txt");
  EXPECT_NE(manifest.find("stubbed"), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("bin/yolo-trainer"), std::string::npos) << manifest;

  // With the repository's own files, it fits one device call.
  const auto tracked = yolo::testing::run_command("cd '" + std::string(YOLO_SOURCE_DIR) +
                                                  "' && git ls-files -z | xargs -0 stat -c %s | "
                                                  "awk '{s += $1} END {print s}'");
  ASSERT_EQ(tracked.exit_code, 0) << tracked.output;
  const std::uintmax_t repo = std::stoull(tracked.output);
  const std::uintmax_t payload = fs::file_size(bundle / "payload.tar.xz");
  EXPECT_LT(repo + payload, kDeviceCallLimit)
      << "payload " << (payload >> 20) << " MiB + repository " << (repo >> 20) << " MiB";
}
