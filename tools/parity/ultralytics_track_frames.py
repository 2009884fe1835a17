"""Ultralytics' tracking of an image sequence, as the oracle of
tests/parity/test_track_real_frames_parity.cpp (dev/test only; the product never runs Python).

    ultralytics_track_frames.py --model yolo11n.pt --source seq/img1 --tracker bytetrack.yaml \
        --out tracks.txt

Runs model.track(source, persist=True) over the folder's images in name order (one sequence:
persist=True keeps the tracker from one image to the next, as `yolo-trainer track` does for a
folder), device=cpu, FP32, Ultralytics' defaults otherwise (conf 0.1, imgsz 640, rect). Writes the
confirmed tracks in MOTChallenge format (frame = the image's file-name number, id, x, y, w, h,
conf) and prints {"rows": N, "frames": M} on its last line.
"""

import argparse
import json
from pathlib import Path


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--tracker", required=True)
    p.add_argument("--out", required=True)
    args = p.parse_args()

    from ultralytics import YOLO

    model = YOLO(args.model)
    rows = []
    frames = 0
    for result in model.track(source=args.source, persist=True, tracker=args.tracker,
                              device="cpu", verbose=False, stream=True):
        frames += 1
        frame = int(Path(result.path).stem)
        boxes = result.boxes
        if boxes is None or boxes.id is None:
            continue
        for (x1, y1, x2, y2), tid, conf in zip(boxes.xyxy.tolist(), boxes.id.tolist(),
                                                boxes.conf.tolist()):
            rows.append(f"{frame},{int(tid)},{x1!r},{y1!r},{x2 - x1!r},{y2 - y1!r},{conf!r},-1,-1,-1")
    Path(args.out).write_text("".join(r + "\n" for r in rows))
    print(json.dumps({"rows": len(rows), "frames": frames}))


if __name__ == "__main__":
    main()
