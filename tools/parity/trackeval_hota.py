"""TrackEval as the oracle for the MOT metrics (dev/test only; the product needs no Python).

Scores MOTChallenge ground-truth/tracker file pairs with TrackEval 1.3's own HOTA, CLEAR and
Identity metric classes and prints the results as JSON on its last line, one object per sequence
plus "COMBINED" (TrackEval's combine_sequences), for tests/tracking/test_mot_metrics_parity.cpp.

    python trackeval_hota.py --seq NAME GT.txt TRACKER.txt [--seq ...] [--threshold 0.5]
                             [--motmetrics]

With --motmetrics, py-motmetrics 1.4 scores the same files too (its loadtxt and
compare_to_groundtruth, as its own test_motchallenge_files does), under the key "motmetrics" of
each sequence, its OVERALL row under COMBINED.

The files are read as TrackEval's MOT15 loader does for 2D boxes: every tracker row; every
ground-truth row except those whose 7th column is 0 ("zero marked"). Ids are relabelled to
0..n-1 and frames to 0..T-1 (T = the largest frame number in either file), and the IoU
matrices come from TrackEval's own _calculate_box_ious, so only the reading of the text
differs from a full TrackEval run (which needs a benchmark folder layout and seqinfo.ini).
"""

import argparse
import json
import sys

import numpy as np

# Older TrackEval releases use numpy aliases that numpy 2 removed (1.3.0 on PyPI no longer does);
# restore them for this oracle only, so that either works.
for _alias, _type in (("float", float), ("int", int), ("bool", bool)):
    if not hasattr(np, _alias):
        setattr(np, _alias, _type)

from trackeval.datasets._base_dataset import _BaseDataset  # noqa: E402
from trackeval.metrics import CLEAR, HOTA, Identity  # noqa: E402


def read_rows(path: str) -> np.ndarray:
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            parts = line.replace(",", " ").split()
            values = [float(v) for v in parts[:7]]
            if len(values) < 7:
                values.append(1.0)
            rows.append(values)
    return np.array(rows, dtype=float).reshape(-1, 7)


def sequence_data(gt_path: str, tracker_path: str) -> dict:
    gt = read_rows(gt_path)
    gt = gt[gt[:, 6] != 0]  # MOT15: zero-marked ground truth is not evaluated
    tr = read_rows(tracker_path)
    num_timesteps = int(max(gt[:, 0].max(initial=0), tr[:, 0].max(initial=0)))
    gt_ids = np.unique(gt[:, 1])
    tr_ids = np.unique(tr[:, 1])
    gt_map = {v: i for i, v in enumerate(gt_ids)}
    tr_map = {v: i for i, v in enumerate(tr_ids)}
    data = {"gt_ids": [], "tracker_ids": [], "similarity_scores": []}
    for t in range(1, num_timesteps + 1):
        g = gt[gt[:, 0] == t]
        k = tr[tr[:, 0] == t]
        data["gt_ids"].append(np.array([gt_map[v] for v in g[:, 1]], dtype=int))
        data["tracker_ids"].append(np.array([tr_map[v] for v in k[:, 1]], dtype=int))
        data["similarity_scores"].append(
            _BaseDataset._calculate_box_ious(g[:, 2:6], k[:, 2:6], box_format="xywh"))
    data.update(num_timesteps=num_timesteps, num_gt_ids=len(gt_ids),
                num_tracker_ids=len(tr_ids), num_gt_dets=len(gt), num_tracker_dets=len(tr))
    return data


def motmetrics_summary(seqs: list, threshold: float) -> dict:
    if not hasattr(np, "asfarray"):  # removed in numpy 2; motmetrics 1.4's iou_matrix uses it
        np.asfarray = lambda a, dtype=float: np.asarray(a, dtype=dtype)
    import motmetrics as mm

    accs = [mm.utils.compare_to_groundtruth(mm.io.loadtxt(gt), mm.io.loadtxt(tr), "iou",
                                            distth=1.0 - threshold) for _, gt, tr in seqs]
    names = [name for name, _, _ in seqs]
    fields = mm.metrics.motchallenge_metrics + ["num_objects", "num_predictions", "idtp", "idfp",
                                                "idfn"]
    summary = mm.metrics.create().compute_many(accs, metrics=fields, names=names,
                                               generate_overall=True)
    return {("COMBINED" if row == "OVERALL" else row): {f: float(summary.loc[row, f])
                                                        for f in fields}
            for row in summary.index}


def as_json(value):
    if isinstance(value, np.ndarray):
        return [float(v) for v in value]
    if isinstance(value, (np.integer, int)):
        return int(value)
    return float(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seq", nargs=3, action="append", required=True,
                        metavar=("NAME", "GT", "TRACKER"))
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--motmetrics", action="store_true")
    args = parser.parse_args()

    config = {"THRESHOLD": args.threshold, "PRINT_CONFIG": False}
    metrics = {"HOTA": HOTA(), "CLEAR": CLEAR(config), "Identity": Identity(config)}
    per_seq = {name: {} for name in metrics}
    for name, gt_path, tracker_path in args.seq:
        data = sequence_data(gt_path, tracker_path)
        for metric_name, metric in metrics.items():
            per_seq[metric_name][name] = metric.eval_sequence(data)
    for metric_name, metric in metrics.items():
        per_seq[metric_name]["COMBINED"] = metric.combine_sequences(per_seq[metric_name])

    out = {}
    for metric_name, results in per_seq.items():
        for seq, res in results.items():
            entry = out.setdefault(seq, {})
            for field, value in res.items():
                entry[field] = as_json(value)
    if args.motmetrics:
        for seq, values in motmetrics_summary(args.seq, args.threshold).items():
            out[seq]["motmetrics"] = values
    sys.stdout.flush()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
