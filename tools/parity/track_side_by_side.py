"""Tracking side by side: our `yolo-trainer track` and Ultralytics' `model.track` on the same
TorchScript export and the same video, both scored against the video's ground truth by the same
evaluator (our mot_eval: CLEAR, identity, HOTA) and by TrackEval where it runs. Dev/bench tool
(docs/benchmarks.md, "Tracking"); the product never runs Python.

    track_side_by_side.py --model best.torchscript --video data/video/synthetic.mp4 \
        --gt data/video/gt/gt.txt --imgsz 256 --out runs/track_sbs [--tracker botsort.yaml]

By default the video is first decoded once with OpenCV (Ultralytics' own reader) and written
losslessly (FFV1), and both tools read that file: GStreamer's and FFmpeg's H.264 decoders and
colour conversions differ by a level or two per pixel, which moves a weak detector's scores by
~0.02 and so its tracks, and would hide the trackers behind decoder noise. --as-is compares on
the original file instead (what each tool's users get end to end).

Prints a table per evaluator, and the summary JSON on its last line.
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True, help="a TorchScript export (ours or Ultralytics')")
    p.add_argument("--video", required=True)
    p.add_argument("--gt", required=True, help="MOTChallenge ground truth of the video")
    p.add_argument("--imgsz", type=int, required=True, help="the export's input size")
    p.add_argument("--tracker", default="botsort.yaml", help="botsort.yaml or bytetrack.yaml")
    p.add_argument("--out", required=True)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--threads", type=int, default=0, help="torch threads for both (0: default)")
    p.add_argument("--as-is", action="store_true", help="read the original video, not a lossless copy")
    return p.parse_args()


def run_ours(args):
    cmd = [os.path.join(args.build, "bin", "yolo-trainer"), "track", f"model={args.model}",
           f"source={args.video}", f"tracker={args.tracker}", f"project={args.out}", "name=ours",
           "exist_ok=True", "save=False", "save_txt=True", "verbose=False", "device=cpu"]
    if args.threads:
        cmd.append(f"threads={args.threads}")
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return os.path.join(args.out, "ours", "predictions.jsonl"), time.perf_counter() - start


def run_ultralytics(args):
    import torch
    from ultralytics import YOLO

    if args.threads:
        torch.set_num_threads(args.threads)
    start = time.perf_counter()
    model = YOLO(args.model, task="detect")
    rows, frames = [], 0
    for frame, r in enumerate(model.track(source=args.video, tracker=args.tracker, imgsz=args.imgsz,
                                          device="cpu", stream=True, verbose=False), start=1):
        frames = frame
        if r.boxes is None or not r.boxes.is_track:
            continue
        for (x1, y1, x2, y2), tid, conf in zip(r.boxes.xyxy.tolist(), r.boxes.id.int().tolist(),
                                               r.boxes.conf.tolist()):
            rows.append(f"{frame},{tid},{x1:.4f},{y1:.4f},{x2 - x1:.4f},{y2 - y1:.4f},{conf:.5f},-1,-1,-1")
    seconds = time.perf_counter() - start
    path = os.path.join(args.out, "ultralytics.txt")
    with open(path, "w") as f:
        f.write("\n".join(rows) + ("\n" if rows else ""))
    return path, seconds, frames


def lossless_copy(video, out_dir):
    import cv2

    cap = cv2.VideoCapture(video)
    fps, size = cap.get(cv2.CAP_PROP_FPS), (int(cap.get(3)), int(cap.get(4)))
    path = os.path.join(out_dir, "lossless.mkv")
    writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"FFV1"), fps, size)
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        writer.write(frame)
    writer.release()
    return path


def jsonl_to_mot(jsonl, path):
    with open(jsonl) as f, open(path, "w") as out:
        for line in f:
            j = json.loads(line)
            for d in j["detections"]:
                if "track_id" in d:
                    out.write(f"{j['frame'] + 1},{d['track_id']},{d['x1']:.4f},{d['y1']:.4f},"
                              f"{d['x2'] - d['x1']:.4f},{d['y2'] - d['y1']:.4f},{d['confidence']:.5f},-1,-1,-1\n")
    return path


def main():
    args = parse_args()
    os.makedirs(args.out, exist_ok=True)
    if not args.as_is:
        args.video = lossless_copy(args.video, args.out)
    ours_jsonl, ours_s = run_ours(args)
    theirs, theirs_s, frames = run_ultralytics(args)
    ours = jsonl_to_mot(ours_jsonl, os.path.join(args.out, "ours.txt"))
    metrics_json = os.path.join(args.out, "mot_eval.json")
    subprocess.run([os.path.join(args.build, "bin", "mot_eval"), "--gt", args.gt, "--tracks", ours,
                    "--tracks", theirs, "--names", "ours,ultralytics", "--json", metrics_json],
                   check=True)
    with open(metrics_json) as f:
        metrics = json.load(f)
    trackeval = {}
    for name, path in (("ours", ours), ("ultralytics", theirs)):
        r = subprocess.run([sys.executable, os.path.join(HERE, "trackeval_hota.py"), "--seq", "video",
                            args.gt, path], capture_output=True, text=True)
        try:
            seq = json.loads(r.stdout.strip().splitlines()[-1])["video"]
            mean = lambda v: sum(v) / len(v) if isinstance(v, list) else v  # noqa: E731
            trackeval[name] = {k: mean(seq[k]) for k in ("HOTA", "DetA", "AssA", "MOTA", "IDF1")}
        except (IndexError, KeyError, json.JSONDecodeError):
            trackeval[name] = {"error": r.stderr.strip()[-300:]}
    for name, values in trackeval.items():
        print(f"TrackEval {name}: " + ", ".join(f"{k} {v:.4f}" for k, v in values.items()
                                                if isinstance(v, float)))
    print(f"wall: ours {ours_s:.1f} s, Ultralytics {theirs_s:.1f} s ({frames} frames), "
          f"ratio {ours_s / theirs_s:.2f}x")
    print(json.dumps({"frames": frames, "ours_s": ours_s, "ultralytics_s": theirs_s,
                      "mot_eval": metrics, "trackeval": trackeval}))


if __name__ == "__main__":
    sys.exit(main())
