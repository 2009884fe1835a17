// The MOT metrics on tiny sequences whose every number is worked out by hand (in the comments),
// under both conventions where they differ, and the MOTChallenge reader's and writer's behaviour.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "test_files.h"
#include "yolo/core/error.h"
#include "yolo/tracking/mot_format.h"
#include "yolo/tracking/mot_metrics.h"

namespace fs = std::filesystem;
using yolo::tracking::MotBox;
using yolo::tracking::MotConvention;
using yolo::tracking::MotFrame;
using yolo::tracking::MotMetricsOptions;
using yolo::tracking::SequenceMetrics;

namespace {

constexpr double kTol = 1e-12;
constexpr MotConvention kBoth[] = {MotConvention::kMotMetrics, MotConvention::kTrackEval};

// A 10 x 10 box at (x, y): boxes 100 px apart never overlap.
MotBox box(int id, double x, double y = 0.0) {
  return MotBox{id, x, y, 10.0, 10.0};
}

SequenceMetrics run(const std::vector<MotFrame>& frames, MotConvention c) {
  MotMetricsOptions o;
  o.convention = c;
  return yolo::tracking::evaluate_sequence(frames, o);
}

// Frames 1..n where object 1 sits still at x = 0.
std::vector<MotFrame> still_object(int n) {
  std::vector<MotFrame> frames;
  for (int f = 1; f <= n; ++f) frames.push_back(MotFrame{f, {box(1, 0)}, {}});
  return frames;
}

std::string convention_name(MotConvention c) {
  return c == MotConvention::kMotMetrics ? "motmetrics" : "trackeval";
}

}  // namespace

// ---- CLEAR, Identity, HOTA ----

TEST(MotMetrics, PerfectTrackingScoresOne) {
  // Two objects, three frames, the tracker reports the exact boxes under its own ids.
  std::vector<MotFrame> frames;
  for (int f = 1; f <= 3; ++f) {
    frames.push_back(MotFrame{f, {box(1, 0), box(2, 100)}, {box(20, 100), box(10, 0)}});
  }
  for (MotConvention c : kBoth) {
    SCOPED_TRACE(convention_name(c));
    const SequenceMetrics m = run(frames, c);
    EXPECT_EQ(m.clear.tp, 6);
    EXPECT_EQ(m.clear.fp + m.clear.fn + m.clear.idsw + m.clear.frag, 0);
    EXPECT_EQ(m.clear.mt, 2);
    EXPECT_EQ(m.clear.gt_ids, 2);
    EXPECT_NEAR(m.clear.mota, 1.0, kTol);
    EXPECT_NEAR(m.clear.motp_distance, 0.0, kTol);
    EXPECT_NEAR(m.clear.motp_iou, 1.0, kTol);
    EXPECT_NEAR(m.identity.idf1, 1.0, kTol);
    EXPECT_NEAR(m.hota.hota, 1.0, kTol);
    EXPECT_NEAR(m.hota.det_a, 1.0, kTol);
    EXPECT_NEAR(m.hota.ass_a, 1.0, kTol);
    EXPECT_NEAR(m.hota.loc_a, 1.0, kTol);
    EXPECT_EQ(m.num_frames, 3);
  }
}

TEST(MotMetrics, IdSwitch) {
  // One object, four frames; the tracker calls it 7 in frames 1-2 and 8 in frames 3-4.
  std::vector<MotFrame> frames = still_object(4);
  for (int f = 0; f < 4; ++f) frames[f].tracks = {box(f < 2 ? 7 : 8, 0)};
  for (MotConvention c : kBoth) {
    SCOPED_TRACE(convention_name(c));
    const SequenceMetrics m = run(frames, c);
    EXPECT_EQ(m.clear.tp, 4);
    EXPECT_EQ(m.clear.idsw, 1);
    EXPECT_EQ(m.clear.frag, 0);
    EXPECT_NEAR(m.clear.mota, 0.75, kTol);  // 1 - 1/4
    // The object's best tracker id covers 2 of its 4 frames: IDTP 2, IDFN 2, IDFP 2.
    EXPECT_EQ(m.identity.idtp, 2);
    EXPECT_EQ(m.identity.idfn, 2);
    EXPECT_EQ(m.identity.idfp, 2);
    EXPECT_NEAR(m.identity.idf1, 0.5, kTol);
    // Every box is a TP at every alpha (DetA 1); each TP's pair has Jaccard 2/(4+2-2) = 0.5.
    EXPECT_NEAR(m.hota.det_a, 1.0, kTol);
    EXPECT_NEAR(m.hota.ass_a, 0.5, kTol);
    EXPECT_NEAR(m.hota.hota, std::sqrt(0.5), kTol);
  }
}

TEST(MotMetrics, TrackerSwapsTwoIdsHalfway) {
  // Objects 1 (x=0) and 2 (x=100), four frames; tracker ids 10 and 20 trade places at frame 3.
  std::vector<MotFrame> frames;
  for (int f = 1; f <= 4; ++f) {
    const bool swapped = f >= 3;
    frames.push_back(MotFrame{
        f, {box(1, 0), box(2, 100)}, {box(swapped ? 20 : 10, 0), box(swapped ? 10 : 20, 100)}});
  }
  for (MotConvention c : kBoth) {
    SCOPED_TRACE(convention_name(c));
    const SequenceMetrics m = run(frames, c);
    EXPECT_EQ(m.clear.tp, 8);
    EXPECT_EQ(m.clear.idsw, 2);
    EXPECT_NEAR(m.clear.mota, 0.75, kTol);  // 1 - 2/8
    // Each of the four id pairs overlaps 2 frames; the best one-to-one matching keeps 4 of 8.
    EXPECT_EQ(m.identity.idtp, 4);
    EXPECT_NEAR(m.identity.idf1, 0.5, kTol);
    // Each pair: 2 matches, 4 + 4 boxes: Jaccard 2/6; AssA = (4 x 2 x 1/3) / 8 = 1/3.
    EXPECT_NEAR(m.hota.det_a, 1.0, kTol);
    EXPECT_NEAR(m.hota.ass_a, 1.0 / 3.0, kTol);
    EXPECT_NEAR(m.hota.hota, std::sqrt(1.0 / 3.0), kTol);
  }
}

TEST(MotMetrics, FragmentationWhenTheTrackerReportsNothingForAFrame) {
  // Tracked (id 7) in frames 1-2 and 4-5; frame 3 has no tracker box at all.
  std::vector<MotFrame> frames = still_object(5);
  for (int f : {0, 1, 3, 4}) frames[f].tracks = {box(7, 0)};
  const SequenceMetrics mm = run(frames, MotConvention::kMotMetrics);
  const SequenceMetrics te = run(frames, MotConvention::kTrackEval);
  for (const SequenceMetrics* m : {&mm, &te}) {
    EXPECT_EQ(m->clear.tp, 4);
    EXPECT_EQ(m->clear.fn, 1);
    EXPECT_EQ(m->clear.idsw, 0);
    EXPECT_NEAR(m->clear.mota, 0.8, kTol);
    EXPECT_NEAR(m->identity.idf1, 4.0 / 4.5, kTol);  // IDTP 4, IDFN 1, IDFP 0
    // DetA 4/5; the pair's Jaccard 4/(5+4-4) = 0.8 for every TP.
    EXPECT_NEAR(m->hota.det_a, 0.8, kTol);
    EXPECT_NEAR(m->hota.ass_a, 0.8, kTol);
    EXPECT_NEAR(m->hota.hota, 0.8, kTol);
  }
  // motmetrics sees the gap; TrackEval skips frames without tracker boxes when it tracks
  // which pairs continue, so for it tracking never stopped.
  EXPECT_EQ(mm.clear.frag, 1);
  EXPECT_EQ(te.clear.frag, 0);
  // Tracked 4 of 5 frames = 80%: mostly tracked for motmetrics (>= 80%), not for TrackEval (> 80%).
  EXPECT_EQ(mm.clear.mt, 1);
  EXPECT_EQ(te.clear.mt, 0);
  EXPECT_EQ(te.clear.pt, 1);
}

TEST(MotMetrics, FragmentationWhenTheObjectIsMissed) {
  // As above, but in frame 3 the tracker reports a box elsewhere (a false positive).
  std::vector<MotFrame> frames = still_object(5);
  for (int f : {0, 1, 3, 4}) frames[f].tracks = {box(7, 0)};
  frames[2].tracks = {box(9, 300)};
  for (MotConvention c : kBoth) {
    SCOPED_TRACE(convention_name(c));
    const SequenceMetrics m = run(frames, c);
    EXPECT_EQ(m.clear.frag, 1);
    EXPECT_EQ(m.clear.fp, 1);
    EXPECT_EQ(m.clear.fn, 1);
    EXPECT_NEAR(m.clear.mota, 0.6, kTol);  // 1 - (1 + 1)/5
    EXPECT_NEAR(m.clear.precision, 0.8, kTol);
    EXPECT_NEAR(m.clear.recall, 0.8, kTol);
  }
}

TEST(MotMetrics, FalsePositivesFalseNegativesAndLocalisation) {
  // One frame: object 1 found with IoU 0.73 (a 10 x 7.3 box inside its 10 x 10 box), object 2
  // missed, one tracker box far from everything.
  const std::vector<MotFrame> frames = {
      MotFrame{1, {box(1, 0), box(2, 100)}, {MotBox{5, 0, 0, 10, 7.3}, box(6, 300)}}};
  for (MotConvention c : kBoth) {
    SCOPED_TRACE(convention_name(c));
    const SequenceMetrics m = run(frames, c);
    EXPECT_EQ(m.clear.tp, 1);
    EXPECT_EQ(m.clear.fp, 1);
    EXPECT_EQ(m.clear.fn, 1);
    EXPECT_NEAR(m.clear.mota, 0.0, kTol);  // 1 - 2/2
    EXPECT_NEAR(m.clear.motp_iou, 0.73, kTol);
    EXPECT_NEAR(m.clear.motp_distance, 0.27, kTol);
    EXPECT_EQ(m.clear.pt + m.clear.mt, 1);
    EXPECT_EQ(m.clear.ml, 1);
    EXPECT_NEAR(m.identity.idf1, 0.5, kTol);
    // alpha <= 0.70 (14 of 19): TP 1, FN 1, FP 1: DetA 1/3, AssA 1, LocA 0.73. alpha >= 0.75:
    // no TP: DetA 0, AssA 0 and LocA 1 (TrackEval's value over no TPs).
    EXPECT_NEAR(m.hota.det_a, 14.0 / 3.0 / 19.0, kTol);
    EXPECT_NEAR(m.hota.ass_a, 14.0 / 19.0, kTol);
    EXPECT_NEAR(m.hota.hota, 14.0 * std::sqrt(1.0 / 3.0) / 19.0, kTol);
    EXPECT_NEAR(m.hota.loc_a, (14.0 * 0.73 + 5.0) / 19.0, kTol);
    EXPECT_NEAR(m.hota.loc_a_per_alpha[13], 0.73, kTol);
    EXPECT_NEAR(m.hota.loc_a_per_alpha[14], 1.0, kTol);
  }
}

TEST(MotMetrics, IouOfExactlyTheThresholdMatches) {
  // A 10 x 5 box in a 10 x 10 one: IoU exactly 0.5.
  const std::vector<MotFrame> frames = {MotFrame{1, {box(1, 0)}, {MotBox{2, 0, 0, 10, 5}}}};
  for (MotConvention c : kBoth) {
    SCOPED_TRACE(convention_name(c));
    const SequenceMetrics m = run(frames, c);
    EXPECT_EQ(m.clear.tp, 1);
    EXPECT_EQ(m.identity.idtp, 1);
  }
  // ... and just below it does not.
  const std::vector<MotFrame> below = {MotFrame{1, {box(1, 0)}, {MotBox{2, 0, 0, 10, 4.99}}}};
  EXPECT_EQ(run(below, MotConvention::kMotMetrics).clear.tp, 0);
  EXPECT_EQ(run(below, MotConvention::kTrackEval).clear.tp, 0);
}

TEST(MotMetrics, WhichEarlierPairIsKeptDiffersBetweenConventions) {
  // Frame 1: object 1 <-> tracker 10. Frame 2: object 1 missed (tracker 30 elsewhere). Frame 3:
  // tracker 10 overlaps it with IoU 0.6, tracker 20 with IoU 0.9. motmetrics keeps the last
  // pair from any earlier frame (10: no switch); TrackEval only the previous frame's, and
  // frame 2 had none, so it takes the better IoU (20: a switch).
  const std::vector<MotFrame> frames = {
      MotFrame{1, {box(1, 0)}, {box(10, 0)}}, MotFrame{2, {box(1, 0)}, {box(30, 300)}},
      MotFrame{3, {box(1, 0)}, {MotBox{10, 0, 0, 10, 6}, MotBox{20, 0, 0, 10, 9}}}};
  const SequenceMetrics mm = run(frames, MotConvention::kMotMetrics);
  const SequenceMetrics te = run(frames, MotConvention::kTrackEval);
  EXPECT_EQ(mm.clear.idsw, 0);
  EXPECT_EQ(te.clear.idsw, 1);
  EXPECT_NEAR(mm.clear.motp_iou, (1.0 + 0.6) / 2.0, kTol);
  EXPECT_NEAR(te.clear.motp_iou, (1.0 + 0.9) / 2.0, kTol);
  for (const SequenceMetrics* m : {&mm, &te}) {
    EXPECT_EQ(m->clear.tp, 2);
    EXPECT_EQ(m->clear.fp, 2);
    EXPECT_EQ(m->clear.fn, 1);
    EXPECT_EQ(m->clear.frag, 1);
  }
}

TEST(MotMetrics, MostlyTrackedPartlyTrackedMostlyLost) {
  // Object 1 tracked 6/6 frames, object 2 3/6, object 3 1/6.
  std::vector<MotFrame> frames;
  for (int f = 1; f <= 6; ++f) {
    MotFrame fr{f, {box(1, 0), box(2, 100), box(3, 200)}, {box(11, 0)}};
    if (f <= 3) fr.tracks.push_back(box(12, 100));
    if (f == 1) fr.tracks.push_back(box(13, 200));
    frames.push_back(fr);
  }
  for (MotConvention c : kBoth) {
    SCOPED_TRACE(convention_name(c));
    const SequenceMetrics m = run(frames, c);
    EXPECT_EQ(m.clear.mt, 1);
    EXPECT_EQ(m.clear.pt, 1);
    EXPECT_EQ(m.clear.ml, 1);
    EXPECT_EQ(m.clear.gt_ids, 3);
  }
}

TEST(MotMetrics, EmptySequences) {
  for (MotConvention c : kBoth) {
    SCOPED_TRACE(convention_name(c));
    // Nothing at all: every count 0, every ratio over nothing 0; LocA is 1 as TrackEval says.
    const SequenceMetrics none = run({}, c);
    EXPECT_EQ(none.clear.tp + none.clear.fp + none.clear.fn, 0);
    EXPECT_EQ(none.clear.mota, 0.0);
    EXPECT_EQ(none.identity.idf1, 0.0);
    EXPECT_EQ(none.hota.hota, 0.0);
    EXPECT_EQ(none.hota.loc_a, 1.0);
    EXPECT_EQ(none.num_frames, 0);
    // Ground truth only: all missed and mostly lost.
    const SequenceMetrics gt_only = run(still_object(3), c);
    EXPECT_EQ(gt_only.clear.fn, 3);
    EXPECT_EQ(gt_only.clear.ml, 1);
    EXPECT_EQ(gt_only.clear.mota, 0.0);
    EXPECT_EQ(gt_only.identity.idfn, 3);
    EXPECT_EQ(gt_only.hota.hota, 0.0);
    // Tracker only: MOTA = -FP (TrackEval divides by max(1, GT); motmetrics would give -inf).
    const SequenceMetrics tracks_only = run({MotFrame{1, {}, {box(1, 0), box(2, 100)}}}, c);
    EXPECT_EQ(tracks_only.clear.fp, 2);
    EXPECT_EQ(tracks_only.clear.mota, -2.0);
    EXPECT_EQ(tracks_only.identity.idfp, 2);
    EXPECT_EQ(tracks_only.hota.hota, 0.0);
  }
}

TEST(MotMetrics, CombiningSequencesAddsCountsAndWeighsHotaByTps) {
  // A perfect sequence (one object, 6 frames) and the id switch of IdSwitch (4 frames).
  std::vector<MotFrame> perfect = still_object(6);
  for (MotFrame& f : perfect) f.tracks = {box(3, 0)};
  std::vector<MotFrame> switched = still_object(4);
  for (int f = 0; f < 4; ++f) switched[f].tracks = {box(f < 2 ? 7 : 8, 0)};
  const SequenceMetrics a = run(perfect, MotConvention::kMotMetrics);
  const SequenceMetrics b = run(switched, MotConvention::kMotMetrics);
  const SequenceMetrics all = yolo::tracking::combine_sequences({a, b});
  EXPECT_EQ(all.clear.tp, 10);
  EXPECT_EQ(all.clear.idsw, 1);
  EXPECT_EQ(all.clear.gt_ids, 2);
  EXPECT_EQ(all.num_frames, 10);
  EXPECT_NEAR(all.clear.mota, 0.9, kTol);
  EXPECT_EQ(all.identity.idtp, 8);  // 6 + 2
  EXPECT_NEAR(all.identity.idf1, 8.0 / 10.0, kTol);
  // AssA = (1 x 6 + 0.5 x 4) / 10 = 0.8 at every alpha; DetA 1.
  EXPECT_NEAR(all.hota.ass_a, 0.8, kTol);
  EXPECT_NEAR(all.hota.hota, std::sqrt(0.8), kTol);
  EXPECT_NEAR(all.hota.loc_a, 1.0, kTol);
}

TEST(MotMetrics, HotaAlphasAreTrackEvals) {
  const yolo::tracking::HotaArray alphas = yolo::tracking::hota_alphas();
  EXPECT_EQ(alphas[0], 0.05);
  EXPECT_NEAR(alphas[9], 0.5, 1e-15);
  EXPECT_NEAR(alphas[18], 0.95, 1e-15);
}

TEST(MotMetrics, BoxIou) {
  EXPECT_NEAR(yolo::tracking::box_iou(box(1, 0), box(2, 5)), 50.0 / 150.0, kTol);
  EXPECT_EQ(yolo::tracking::box_iou(box(1, 0), box(2, 10)), 0.0);  // touching edges
  EXPECT_EQ(yolo::tracking::box_iou(box(1, 0), MotBox{2, 0, 0, 0, 10}), 0.0);
}

TEST(MotMetrics, RejectsRepeatedIdsAndFramesOutOfOrder) {
  yolo::tracking::SequenceEvaluator e;
  EXPECT_THROW(e.add_frame(1, {box(1, 0), box(1, 100)}, {}), yolo::FailureError);
  EXPECT_THROW(e.add_frame(1, {}, {box(4, 0), box(4, 100)}), yolo::FailureError);
  e.add_frame(2, {box(1, 0)}, {box(4, 0)});
  try {
    e.add_frame(2, {box(1, 0)}, {box(4, 0)});
    FAIL() << "a repeated frame number was accepted";
  } catch (const yolo::FailureError& err) {
    EXPECT_NE(std::string(err.what()).find("increasing order"), std::string::npos) << err.what();
  }
  EXPECT_EQ(e.result().clear.tp, 1);  // the rejected frames left nothing behind
}

// ---- MOTChallenge text ----

TEST(MotFormat, ReadsTheUsualForms) {
  const std::string text =
      "1,1,399,182,121,229,1,-1,-1,-1\n"
      "1, 2, 282.5, 201, 92, 184, 0.9\r\n"
      "\n"
      "2 3 10 20 30 40\n"
      "  3.0,4,1e1,2,3,4,1,10.5,5.25,0  \n";
  const auto t = yolo::tracking::parse_mot_text(text, "mem.txt");
  ASSERT_EQ(t.rows.size(), 4u);
  EXPECT_EQ(t.source, "mem.txt");
  EXPECT_EQ(t.rows[0].frame, 1);
  EXPECT_EQ(t.rows[0].h, 229.0);
  EXPECT_EQ(t.rows[0].extra1, -1.0);
  EXPECT_EQ(t.rows[1].id, 2);
  EXPECT_EQ(t.rows[1].x, 282.5);
  EXPECT_EQ(t.rows[1].conf, 0.9);
  EXPECT_EQ(t.rows[1].extra3, -1.0);  // absent
  EXPECT_EQ(t.rows[2].frame, 2);
  EXPECT_EQ(t.rows[2].w, 30.0);
  EXPECT_EQ(t.rows[2].conf, 1.0);  // absent
  EXPECT_EQ(t.rows[2].line, 4);
  EXPECT_EQ(t.rows[3].frame, 3);
  EXPECT_EQ(t.rows[3].x, 10.0);
  EXPECT_EQ(t.rows[3].extra2, 5.25);
  EXPECT_EQ(t.rows[3].line, 5);
}

TEST(MotFormat, MalformedLinesNameTheFileAndLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1,2,3,4,5", "expected 6 to 10 values, found 5"},
      {"1,2,3,4,5,6,7,8,9,10,11", "found 11"},
      {"1,2,abc,4,5,6", "x (value 3) is not a finite number: 'abc'"},
      {"1,2,,4,5,6", "x (value 3) is not a finite number: ''"},
      {"1,2,3,4,nan,6", "w (value 5)"},
      {"1,2,3,4,5,inf", "h (value 6)"},
      {"1.5,2,3,4,5,6", "frame must be an integer, found '1.5'"},
      {"1,2.25,3,4,5,6", "id must be an integer"},
      {"0,2,3,4,5,6", "frame 0 is below 1"},
      {"1,2,3,4,-5,6", "negative box width or height"},
  };
  for (const auto& [line, expected] : cases) {
    try {
      yolo::tracking::parse_mot_text("1,1,0,0,1,1\n" + line + "\n", "gt.txt");
      ADD_FAILURE() << "accepted: " << line;
    } catch (const yolo::FailureError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("gt.txt:2: ", 0), 0u) << what;
      EXPECT_NE(what.find(expected), std::string::npos) << what;
    }
  }
}

TEST(MotFormat, MissingFileIsAClearError) {
  try {
    yolo::tracking::read_mot_file("/nonexistent/yolo/gt.txt");
    FAIL() << "no error";
  } catch (const yolo::FailureError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/yolo/gt.txt"), std::string::npos);
  }
}

TEST(MotFormat, WritesAtomicallyAndReadsBackExactly) {
  yolo::testing::TempDir tmp("mot_format");
  yolo::tracking::MotRow r;
  r.frame = 12;
  r.id = 3;
  r.x = 0.1;
  r.y = 1e-7;
  r.w = 123.456;
  r.h = 1.0 / 3.0;
  r.conf = 0.87654321;
  const fs::path path = tmp.path / "out" / "tracks.txt";
  yolo::tracking::write_mot_file(path, {r, r});
  EXPECT_EQ(std::distance(fs::directory_iterator(path.parent_path()), fs::directory_iterator()),
            1);  // no temporary file left beside it
  const auto t = yolo::tracking::read_mot_file(path);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].frame, 12);
  EXPECT_EQ(t.rows[0].id, 3);
  EXPECT_EQ(t.rows[0].x, r.x);
  EXPECT_EQ(t.rows[0].y, r.y);
  EXPECT_EQ(t.rows[0].w, r.w);
  EXPECT_EQ(t.rows[0].h, r.h);
  EXPECT_EQ(t.rows[0].conf, r.conf);
  EXPECT_EQ(t.rows[1].extra1, -1.0);
  EXPECT_EQ(yolo::tracking::format_mot_rows({t.rows[0]}),
            "12,3,0.1,1e-07,123.456,0.3333333333333333,0.87654321,-1,-1,-1\n");
}

TEST(MotFormat, FramesFromTablesGroupsFiltersAndRejectsRepeatedIds) {
  const auto gt = yolo::tracking::parse_mot_text(
      "1,1,0,0,10,10,1\n3,1,0,0,10,10,1\n3,2,50,0,10,10,0\n", "gt.txt");
  const auto tracks = yolo::tracking::parse_mot_text("2,5,0,0,10,10\n3,5,0,0,10,10\n", "t.txt");
  auto frames = yolo::tracking::frames_from_tables(gt, tracks);
  ASSERT_EQ(frames.size(), 3u);  // every frame of either file
  EXPECT_EQ(frames[0].frame, 1);
  EXPECT_EQ(frames[1].gt.size(), 0u);
  EXPECT_EQ(frames[1].tracks.size(), 1u);
  EXPECT_EQ(frames[2].gt.size(), 2u);
  yolo::tracking::MotRowFilter consider_only;
  consider_only.min_gt_confidence = 1.0;
  frames = yolo::tracking::frames_from_tables(gt, tracks, consider_only);
  EXPECT_EQ(frames[2].gt.size(), 1u);

  const auto repeated =
      yolo::tracking::parse_mot_text("1,1,0,0,10,10\n2,1,0,0,10,10\n1,1,5,5,10,10\n", "dup.txt");
  try {
    yolo::tracking::frames_from_tables(repeated, tracks);
    FAIL() << "no error";
  } catch (const yolo::FailureError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("dup.txt:3: id 1 appears twice in frame 1 (also on line 1)"),
              std::string::npos)
        << what;
  }
}
