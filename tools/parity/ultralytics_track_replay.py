"""Replays per-frame detections through Ultralytics' own trackers (the oracle of
tests/tracking/test_tracker_parity.cpp; test/dev only).

Input: a detections file with one line per detection, `frame x1 y1 x2 y2 score class` (frames from
1, frame pixels), and the frame count (frames with no detections are still fed, as empty).
With --frames DIR, frame N is DIR/NNNNNN.png and is given to the tracker (BoT-SORT's motion
compensation reads it). The tracker settings come from a YAML (Ultralytics' own keys).

Output (--out): one line per confirmed track per frame, `frame id x1 y1 x2 y2 score class index`
(%.6f boxes), and, with --warps FILE, the 2x3 warp the motion compensation found per frame.
The last line printed to stdout is a JSON summary.

Detections reach the tracker as Ultralytics' predictor hands them over: a Boxes object of
float32 [x1, y1, x2, y2, conf, cls] rows, .cpu().numpy() (ultralytics/trackers/track.py).
"""

import argparse
import json
import os
import sys
import time
from collections import defaultdict

import numpy as np


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--detections", required=True)
    p.add_argument("--frames-count", type=int, required=True)
    p.add_argument("--tracker", required=True, help="a tracker YAML with Ultralytics' keys")
    p.add_argument("--frames", default=None, help="folder of NNNNNN.png frames (for GMC)")
    p.add_argument("--height", type=int, default=480)
    p.add_argument("--width", type=int, default=640)
    p.add_argument("--out", required=True)
    p.add_argument("--warps", default=None)
    p.add_argument("--no-image", action="store_true",
                   help="give the tracker no image (BoT-SORT then skips motion compensation)")
    return p.parse_args()


def read_detections(path):
    per_frame = defaultdict(list)
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            per_frame[int(parts[0])].append([float(v) for v in parts[1:7]])
    return per_frame


def main():
    args = parse_args()
    import cv2
    import torch
    from ultralytics.engine.results import Boxes
    from ultralytics.trackers.bot_sort import BOTSORT
    from ultralytics.trackers.byte_tracker import BYTETracker
    from ultralytics.utils import YAML, IterableSimpleNamespace

    cfg = IterableSimpleNamespace(**YAML.load(args.tracker))
    tracker = {"bytetrack": BYTETracker, "botsort": BOTSORT}[cfg.tracker_type](args=cfg)
    warps = []
    if args.warps and hasattr(tracker, "gmc"):
        original_apply = tracker.gmc.apply

        def recording_apply(img, dets=None):
            h = original_apply(img, dets)
            warps.append(np.asarray(h, dtype=np.float64).reshape(-1).tolist())
            return h

        tracker.gmc.apply = recording_apply

    per_frame = read_detections(args.detections)
    blank = np.zeros((args.height, args.width, 3), dtype=np.uint8)
    rows, confirmed, update_s = [], 0, 0.0
    for frame in range(1, args.frames_count + 1):
        dets = np.asarray(per_frame.get(frame, []), dtype=np.float32).reshape(-1, 6)
        boxes = Boxes(torch.from_numpy(dets), (args.height, args.width)).cpu().numpy()
        img = None if args.no_image else blank
        if args.frames:
            img = cv2.imread(os.path.join(args.frames, f"{frame:06d}.png"))
        start = time.perf_counter()
        tracks = tracker.update(boxes, img)
        update_s += time.perf_counter() - start
        for t in tracks:
            x1, y1, x2, y2, tid, score, cls, idx = t.tolist()
            rows.append(f"{frame} {int(tid)} {x1:.6f} {y1:.6f} {x2:.6f} {y2:.6f} {score:.6f} "
                        f"{int(cls)} {int(idx)}")
            confirmed += 1
    with open(args.out, "w") as f:
        f.write("\n".join(rows) + ("\n" if rows else ""))
    if args.warps:
        with open(args.warps, "w") as f:
            for w in warps:
                f.write(" ".join(f"{v:.9f}" for v in w) + "\n")
    print(json.dumps({"frames": args.frames_count, "track_rows": confirmed, "warps": len(warps),
                      "update_ms_mean": 1000.0 * update_s / max(1, args.frames_count)}))


if __name__ == "__main__":
    sys.exit(main())
