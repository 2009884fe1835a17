"""Replays tracks through Ultralytics' own ObjectCounter (solutions), one counter per line: the
oracle of tests/analytics/test_object_counter_parity.cpp (test/dev only).

Input (--tracks): JSON {"width": W, "height": H, "names": {"0": "circle", ...},
  "lines": [[[x, y], [x, y]], ...],
  "frames": [{"objects": [[track_id, class, x1, y1, x2, y2], ...], "ended": [track_id, ...]}, ...]}
Each frame goes through ObjectCounter.process() itself: only its model is left out. The
counter's extract_tracks() is replaced by one that hands over this frame's tracks as the tracker
would (float32 xyxy boxes, float classes, int ids) and forgets the ended ids
(removed_stracks_frame), as the original does after model.track().

Output (--out): JSON, per line {"in": n, "out": n, "classwise": {name: {"IN": n, "OUT": n}},
"frames": [[frame_index, [counted ids this frame], in_delta, out_delta], ...]} (frames where
nothing was counted are left out).
"""

import argparse
import json
import types


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tracks", required=True)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    with open(args.tracks) as f:
        data = json.load(f)

    import numpy as np
    import torch
    import ultralytics.solutions.solutions as solutions
    from ultralytics.solutions.object_counter import ObjectCounter

    names = {int(k): v for k, v in data["names"].items()}
    # The counter builds a YOLO model in __init__; this replay gives it the tracks instead.
    solutions.YOLO = lambda *a, **k: types.SimpleNamespace(names=names)

    frames = data["frames"]
    image = np.zeros((data["height"], data["width"], 3), dtype=np.uint8)
    results = []
    for line in data["lines"]:
        counter = ObjectCounter(region=[tuple(p) for p in line], show=False, verbose=False)
        state = {"i": 0}

        def extract_tracks(self, im0, state=state):
            fr = frames[state["i"]]
            objs = fr["objects"]
            if objs:
                self.boxes = torch.tensor([o[2:6] for o in objs], dtype=torch.float32)
                self.clss = [float(o[1]) for o in objs]
                self.track_ids = [int(o[0]) for o in objs]
                self.confs = [1.0 for _ in objs]
            else:
                self.boxes, self.clss, self.track_ids, self.confs = [], [], [], []
            self.forget_tracks(fr["ended"])

        counter.extract_tracks = types.MethodType(extract_tracks, counter)
        per_frame = []
        for i in range(len(frames)):
            state["i"] = i
            before = set(counter.counted_ids)
            in0, out0 = counter.in_count, counter.out_count
            counter.process(image.copy())
            new = sorted(set(counter.counted_ids) - before)
            if new or counter.in_count != in0 or counter.out_count != out0:
                per_frame.append([i, new, counter.in_count - in0, counter.out_count - out0])
        results.append({
            "in": counter.in_count,
            "out": counter.out_count,
            "classwise": {k: dict(v) for k, v in counter.classwise_count.items()},
            "frames": per_frame,
        })
    with open(args.out, "w") as f:
        json.dump({"lines": results}, f)
    print(json.dumps({"lines": len(results), "frames": len(frames)}))


if __name__ == "__main__":
    main()
