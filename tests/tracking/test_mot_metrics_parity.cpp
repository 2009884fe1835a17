// The MOT metrics against the two reference kits (label `parity`; needs the motmetrics and
// trackeval packages in the test Python, skipped without):
//   - py-motmetrics 1.4: the numbers its own test pins for the TUD-Campus and TUD-Stadtmitte
//     files it ships (motmetrics/tests/test_metrics.py::test_motchallenge_files), copied below.
//   - TrackEval 1.3, run as an oracle on the same files by tools/parity/trackeval_hota.py:
//     HOTA, DetA, AssA, LocA (means and every alpha), and CLEAR / Identity under our TrackEval
//     convention.
//   - Both kits live on synthetic sequences built to make their CLEAR conventions disagree (gaps,
//     frames without tracker boxes, id changes, near-threshold IoUs).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "run_command.h"
#include "test_files.h"
#include "yolo/tracking/mot_format.h"
#include "yolo/tracking/mot_metrics.h"

namespace fs = std::filesystem;
using yolo::tracking::MotConvention;
using yolo::tracking::MotMetricsOptions;
using yolo::tracking::SequenceMetrics;

namespace {

constexpr double kTol = 1e-3;  // the tolerance of the task; the measured differences are printed

// motmetrics/tests/test_metrics.py::test_motchallenge_files (py-motmetrics 1.4.0), the rows of
// `expected`, in its column order: idf1, idp, idr, recall, precision, num_unique_objects,
// mostly_tracked, partially_tracked, mostly_lost, num_false_positives, num_misses,
// num_switches, num_fragmentations, mota, motp (motp as the mean 1 - IoU distance).
constexpr std::array<const char*, 15> kPinnedNames = {
    "idf1", "idp", "idr", "recall", "precision", "GT ids", "MT",  "PT",
    "ML",   "FP",  "FN",  "IDSW",   "Frag",      "MOTA",   "MOTP"};
constexpr std::array<double, 15> kPinnedCampus = {0.557659, 0.729730, 0.451253, 0.582173, 0.941441,
                                                  8,        1,        6,        1,        13,
                                                  150,      7,        7,        0.526462, 0.277201};
constexpr std::array<double, 15> kPinnedStadtmitte = {
    0.644619, 0.819760, 0.531142, 0.608997, 0.939920, 10,       5,       4,
    1,        45,       452,      7,        6,        0.564014, 0.345904};
constexpr std::array<double, 15> kPinnedOverall = {
    0.624296, 0.799176, 0.512211, 0.602640, 0.940268, 18,       6,       10,
    2,        58,       602,      14,       13,       0.555116, 0.330177};

std::array<double, 15> pinned_order(const SequenceMetrics& m) {
  const auto& c = m.clear;
  const auto& i = m.identity;
  return {i.idf1,
          i.idp,
          i.idr,
          c.recall,
          c.precision,
          static_cast<double>(c.gt_ids),
          static_cast<double>(c.mt),
          static_cast<double>(c.pt),
          static_cast<double>(c.ml),
          static_cast<double>(c.fp),
          static_cast<double>(c.fn),
          static_cast<double>(c.idsw),
          static_cast<double>(c.frag),
          c.mota,
          c.motp_distance};
}

// The largest difference seen per group of numbers, printed at the end of a test.
struct Diffs {
  std::vector<std::pair<std::string, double>> groups;
  void check(const std::string& group, const std::string& what, double ours, double theirs,
             double tol) {
    EXPECT_NEAR(ours, theirs, tol) << group << ": " << what;
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == group; });
    if (it == groups.end()) {
      groups.emplace_back(group, 0.0);
      it = groups.end() - 1;
    }
    it->second = std::max(it->second, std::abs(ours - theirs));
  }
  void print() const {
    for (const auto& [group, d] : groups) {
      std::cout << "[ measured ] largest |ours - oracle| for " << group << ": " << d << "\n";
    }
  }
};

bool python_has(const std::string& module) {
  return yolo::testing::run_command(std::string(YOLO_TEST_PYTHON) + " -c 'import " + module + "'")
             .exit_code == 0;
}

// The folder of the TUD sequences inside the installed motmetrics wheel; empty without it.
fs::path motmetrics_data_dir() {
  const auto r = yolo::testing::run_command(
      std::string(YOLO_TEST_PYTHON) +
      " -c 'import motmetrics, os; print(os.path.dirname(motmetrics.__file__))'");
  if (r.exit_code != 0) return {};
  std::string dir = r.output;
  dir = dir.substr(0, dir.find_last_not_of("\r\n") + 1);
  dir = dir.substr(dir.find_last_of('\n') + 1);  // the last line (warnings may precede it)
  return fs::path(dir) / "data";
}

struct Sequence {
  std::string name;
  fs::path gt;
  fs::path tracks;
};

// Runs tools/parity/trackeval_hota.py on the sequences; its JSON is on the last line.
nlohmann::json run_oracle(const std::vector<Sequence>& seqs, bool with_motmetrics) {
  std::string cmd = std::string(YOLO_TEST_PYTHON) + " " + YOLO_SOURCE_DIR +
                    "/tools/parity/trackeval_hota.py" + (with_motmetrics ? " --motmetrics" : "");
  for (const Sequence& s : seqs) {
    cmd += " --seq '" + s.name + "' '" + s.gt.string() + "' '" + s.tracks.string() + "'";
  }
  const auto r = yolo::testing::run_command(cmd);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::string out = r.output;
  out = out.substr(0, out.find_last_not_of("\r\n") + 1);
  const auto json = nlohmann::json::parse(out.substr(out.find_last_of('\n') + 1), nullptr, false);
  EXPECT_TRUE(json.is_object()) << "the oracle printed no JSON:\n" << r.output;
  return json;
}

double mean_of(const nlohmann::json& array) {
  double sum = 0.0;
  for (const auto& v : array) sum += v.get<double>();
  return sum / static_cast<double>(array.size());
}

void compare_hota(const std::string& seq, const yolo::tracking::HotaMetrics& h,
                  const nlohmann::json& te, double tol, Diffs& d) {
  d.check("HOTA/DetA/AssA/LocA means", seq + " HOTA", h.hota, mean_of(te["HOTA"]), tol);
  d.check("HOTA/DetA/AssA/LocA means", seq + " DetA", h.det_a, mean_of(te["DetA"]), tol);
  d.check("HOTA/DetA/AssA/LocA means", seq + " AssA", h.ass_a, mean_of(te["AssA"]), tol);
  d.check("HOTA/DetA/AssA/LocA means", seq + " LocA", h.loc_a, mean_of(te["LocA"]), tol);
  const std::vector<std::pair<const char*, const yolo::tracking::HotaArray*>> arrays = {
      {"HOTA", &h.hota_per_alpha},
      {"DetA", &h.det_a_per_alpha},
      {"AssA", &h.ass_a_per_alpha},
      {"LocA", &h.loc_a_per_alpha},
      {"DetRe", &h.det_re_per_alpha},
      {"DetPr", &h.det_pr_per_alpha},
      {"AssRe", &h.ass_re_per_alpha},
      {"AssPr", &h.ass_pr_per_alpha},
      {"HOTA_TP", &h.tp},
      {"HOTA_FN", &h.fn},
      {"HOTA_FP", &h.fp}};
  for (const auto& [name, ours] : arrays) {
    for (int a = 0; a < yolo::tracking::kHotaAlphas; ++a) {
      d.check("HOTA per alpha", seq + " " + name + "[" + std::to_string(a) + "]", (*ours)[a],
              te[name][a].get<double>(), tol);
    }
  }
}

// Our TrackEval convention against TrackEval's CLEAR and Identity.
void compare_trackeval_clear(const std::string& seq, const SequenceMetrics& m,
                             const nlohmann::json& te, double tol, Diffs& d) {
  const auto& c = m.clear;
  const auto& i = m.identity;
  const std::vector<std::pair<const char*, double>> fields = {{"CLR_TP", double(c.tp)},
                                                              {"CLR_FN", double(c.fn)},
                                                              {"CLR_FP", double(c.fp)},
                                                              {"IDSW", double(c.idsw)},
                                                              {"MT", double(c.mt)},
                                                              {"PT", double(c.pt)},
                                                              {"ML", double(c.ml)},
                                                              {"Frag", double(c.frag)},
                                                              {"MOTA", c.mota},
                                                              {"MOTP", c.motp_iou},
                                                              {"MODA", c.moda},
                                                              {"CLR_Re", c.recall},
                                                              {"CLR_Pr", c.precision},
                                                              {"IDTP", double(i.idtp)},
                                                              {"IDFN", double(i.idfn)},
                                                              {"IDFP", double(i.idfp)},
                                                              {"IDF1", i.idf1},
                                                              {"IDP", i.idp},
                                                              {"IDR", i.idr}};
  for (const auto& [name, ours] : fields) {
    d.check("TrackEval CLEAR/Identity", seq + " " + name, ours, te[name].get<double>(), tol);
  }
}

// Our motmetrics convention against a live py-motmetrics run.
void compare_motmetrics(const std::string& seq, const SequenceMetrics& m, const nlohmann::json& mm,
                        double tol, Diffs& d) {
  const std::array<const char*, 15> names = {"idf1",
                                             "idp",
                                             "idr",
                                             "recall",
                                             "precision",
                                             "num_unique_objects",
                                             "mostly_tracked",
                                             "partially_tracked",
                                             "mostly_lost",
                                             "num_false_positives",
                                             "num_misses",
                                             "num_switches",
                                             "num_fragmentations",
                                             "mota",
                                             "motp"};
  const std::array<double, 15> ours = pinned_order(m);
  for (size_t k = 0; k < names.size(); ++k) {
    d.check("py-motmetrics (live)", seq + " " + names[k], ours[k], mm[names[k]].get<double>(), tol);
  }
  d.check("py-motmetrics (live)", seq + " idtp", double(m.identity.idtp), mm["idtp"].get<double>(),
          tol);
}

SequenceMetrics evaluate(const Sequence& s, MotConvention c) {
  MotMetricsOptions o;
  o.convention = c;
  return yolo::tracking::evaluate_mot_files(s.gt, s.tracks, o);
}

std::vector<Sequence> tud_sequences() {
  const fs::path data = motmetrics_data_dir();
  std::vector<Sequence> seqs;
  for (const char* name : {"TUD-Campus", "TUD-Stadtmitte"}) {
    seqs.push_back({name, data / name / "gt.txt", data / name / "test.txt"});
  }
  return seqs;
}

}  // namespace

TEST(MotMetricsParity, TudMatchesMotmetricsPinnedNumbers) {
  if (motmetrics_data_dir().empty()) {
    GTEST_SKIP() << "the motmetrics package is not installed in " << YOLO_TEST_PYTHON
                 << " (pip install motmetrics==1.4.0): its wheel ships the TUD files";
  }
  const std::vector<Sequence> seqs = tud_sequences();
  ASSERT_TRUE(fs::exists(seqs[0].gt)) << seqs[0].gt;
  std::vector<SequenceMetrics> results;
  for (const Sequence& s : seqs) results.push_back(evaluate(s, MotConvention::kMotMetrics));
  const SequenceMetrics overall = yolo::tracking::combine_sequences(results);
  Diffs d;
  const std::vector<std::pair<std::string, std::pair<const SequenceMetrics*, const double*>>> rows =
      {{"TUD-Campus", {&results[0], kPinnedCampus.data()}},
       {"TUD-Stadtmitte", {&results[1], kPinnedStadtmitte.data()}},
       {"OVERALL", {&overall, kPinnedOverall.data()}}};
  for (const auto& [name, row] : rows) {
    const std::array<double, 15> ours = pinned_order(*row.first);
    for (size_t k = 0; k < ours.size(); ++k) {
      d.check("py-motmetrics pinned (6 decimals)", name + " " + kPinnedNames[k], ours[k],
              row.second[k], kTol);
    }
  }
  d.print();
}

TEST(MotMetricsParity, TudMatchesTrackEval) {
  if (motmetrics_data_dir().empty() || !python_has("trackeval")) {
    GTEST_SKIP() << "needs the motmetrics (TUD files) and trackeval packages in "
                 << YOLO_TEST_PYTHON << " (pip install motmetrics==1.4.0 trackeval==1.3.0)";
  }
  const std::vector<Sequence> seqs = tud_sequences();
  const nlohmann::json te = run_oracle(seqs, /*with_motmetrics=*/false);
  ASSERT_TRUE(te.is_object());
  std::vector<SequenceMetrics> results;
  Diffs d;
  for (const Sequence& s : seqs) {
    results.push_back(evaluate(s, MotConvention::kTrackEval));
    compare_hota(s.name, results.back().hota, te[s.name], kTol, d);
    compare_trackeval_clear(s.name, results.back(), te[s.name], kTol, d);
  }
  const SequenceMetrics combined = yolo::tracking::combine_sequences(results);
  compare_hota("COMBINED", combined.hota, te["COMBINED"], kTol, d);
  compare_trackeval_clear("COMBINED", combined, te["COMBINED"], kTol, d);
  // HOTA does not depend on the CLEAR convention.
  const SequenceMetrics mm = evaluate(seqs[0], MotConvention::kMotMetrics);
  EXPECT_EQ(mm.hota.hota, results[0].hota.hota);
  std::cout << "[ measured ] COMBINED HOTA " << combined.hota.hota << " DetA "
            << combined.hota.det_a << " AssA " << combined.hota.ass_a << " LocA "
            << combined.hota.loc_a << "\n";
  d.print();
}

namespace {

// A sequence of `frames` frames with a few objects on random walks, with gaps in the ground
// truth, and tracker output derived from it: jittered boxes (IoUs on both sides of 0.5),
// misses, id changes, false positives and whole frames without tracker boxes.
void synthetic_sequence(std::mt19937& rng, std::vector<yolo::tracking::MotRow>& gt,
                        std::vector<yolo::tracking::MotRow>& tracks) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> n(0.0, 1.0);
  const int frames = 10 + static_cast<int>(rng() % 30);
  const int objects = 2 + static_cast<int>(rng() % 6);
  int next_track_id = 100;
  for (int o = 1; o <= objects; ++o) {
    const int start = 1 + static_cast<int>(rng() % frames);
    const int end = start + static_cast<int>(rng() % (frames - start + 1));
    double x = 300 * u(rng), y = 300 * u(rng);
    const double w = 20 + 60 * u(rng), h = 40 + 120 * u(rng);
    int track_id = next_track_id++;
    for (int f = start; f <= end; ++f) {
      x += 6 * n(rng);
      y += 6 * n(rng);
      if (u(rng) < 0.1) continue;  // not annotated in this frame
      gt.push_back({f, o, x, y, w, h, 1.0, -1.0, -1.0, -1.0, 0});
      if (u(rng) < 0.15) continue;                    // missed
      if (u(rng) < 0.06) track_id = next_track_id++;  // the tracker changes its id
      const double jitter = 0.35 * u(rng);
      tracks.push_back({f, track_id, x + jitter * w * n(rng), y + jitter * h * n(rng),
                        w * (0.8 + 0.45 * u(rng)), h * (0.8 + 0.45 * u(rng)), 1.0, -1.0, -1.0, -1.0,
                        0});
    }
  }
  for (int k = static_cast<int>(rng() % 10); k > 0; --k) {  // false positives, ids 500-504
    const int f = 1 + static_cast<int>(rng() % frames), id = 500 + static_cast<int>(rng() % 5);
    const bool taken = std::any_of(tracks.begin(), tracks.end(),
                                   [&](const auto& r) { return r.frame == f && r.id == id; });
    if (!taken) tracks.push_back({f, id, 300 * u(rng), 300 * u(rng), 40, 90, 1, -1, -1, -1, 0});
  }
  const int dead = 1 + static_cast<int>(rng() % frames);  // a frame without tracker boxes
  tracks.erase(
      std::remove_if(tracks.begin(), tracks.end(), [&](const auto& r) { return r.frame == dead; }),
      tracks.end());
  for (auto* rows : {&gt, &tracks}) {
    std::stable_sort(rows->begin(), rows->end(),
                     [](const auto& a, const auto& b) { return a.frame < b.frame; });
  }
}

}  // namespace

TEST(MotMetricsParity, SyntheticSequencesMatchBothKits) {
  if (!python_has("trackeval") || !python_has("motmetrics")) {
    GTEST_SKIP() << "needs the motmetrics and trackeval packages in " << YOLO_TEST_PYTHON;
  }
  yolo::testing::TempDir tmp("mot_metrics_parity");
  std::mt19937 rng(20240611);
  std::vector<Sequence> seqs;
  for (int k = 0; k < 24; ++k) {
    std::vector<yolo::tracking::MotRow> gt, tracks;
    synthetic_sequence(rng, gt, tracks);
    Sequence s{"seq" + std::to_string(k), tmp.path / ("gt" + std::to_string(k) + ".txt"),
               tmp.path / ("tracks" + std::to_string(k) + ".txt")};
    yolo::tracking::write_mot_file(s.gt, gt);
    yolo::tracking::write_mot_file(s.tracks, tracks);
    seqs.push_back(s);
  }
  const nlohmann::json oracle = run_oracle(seqs, /*with_motmetrics=*/true);
  ASSERT_TRUE(oracle.is_object());
  // Same algorithms, so far tighter than kTol: only summation order differs.
  constexpr double kExact = 1e-9;
  Diffs d;
  std::vector<SequenceMetrics> mm_all, te_all;
  int differing = 0;  // sequences where the two CLEAR conventions disagree
  for (const Sequence& s : seqs) {
    mm_all.push_back(evaluate(s, MotConvention::kMotMetrics));
    te_all.push_back(evaluate(s, MotConvention::kTrackEval));
    compare_motmetrics(s.name, mm_all.back(), oracle[s.name]["motmetrics"], kExact, d);
    compare_trackeval_clear(s.name, te_all.back(), oracle[s.name], kExact, d);
    compare_hota(s.name, te_all.back().hota, oracle[s.name], kExact, d);
    if (pinned_order(mm_all.back()) != pinned_order(te_all.back())) ++differing;
  }
  compare_motmetrics("COMBINED", yolo::tracking::combine_sequences(mm_all),
                     oracle["COMBINED"]["motmetrics"], kExact, d);
  const SequenceMetrics te_combined = yolo::tracking::combine_sequences(te_all);
  compare_trackeval_clear("COMBINED", te_combined, oracle["COMBINED"], kExact, d);
  compare_hota("COMBINED", te_combined.hota, oracle["COMBINED"], kExact, d);
  // The sequences must exercise what separates the conventions, or the test proves little.
  EXPECT_GE(differing, 6) << "of " << seqs.size();
  std::cout << "[ measured ] the conventions differ on " << differing << " of " << seqs.size()
            << " sequences\n";
  d.print();
}
