"""Our decode of a real video against OpenCV's (Ultralytics' decode), in pixels and in
predictions. Dev tool for issue #53 (docs/benchmarks.md, "Decoded colours"); the product never
runs Python.

    PY=/opt/yolo-edge/venv/bin/python
    $PY tools/parity/video_decode_predictions.py --video vtest.avi --model yolo11n.pt \
        --out runs/parity/decode [--frames N]

1. Decodes the video twice into PNG folders: with OpenCV's VideoCapture (FFmpeg: what
   `yolo predict source=video` reads) and with our decoder (build/bin/parity_dump_decoded_frames:
   media::FrameDecoder, what `yolo-trainer predict source=video` reads). PNG is lossless, so each
   folder holds exactly the pixels its program's model sees.
2. Compares the pixels: mean absolute difference, the signed bias per channel (ours - OpenCV) and
   the share of values within 1 and 2 levels. With --raw-i420 (the decoder's own YUV of the first
   frame, `decodebin ! video/x-raw,format=I420 ! filesink`) and --matrix, both decodes of frame 1
   are also compared with the exact conversion of that YUV.
3. Predicts (conf 0.25, imgsz 640, FP32 on both sides: bf16=False for ours, CPU): Ultralytics on OpenCV's frames, ours on our frames
   (what each user gets from the video) and ours on OpenCV's frames (the model alone, on identical
   pixels). Prints, for each of ours, the share of Ultralytics' boxes it matches with the same
   class, IoU >= 0.95 and confidence within 0.01 (the issue's test), the share matched at IoU >=
   0.5, and the largest confidence difference among those.
"""

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def opencv_frames(video: Path, out: Path, limit: int) -> int:
    out.mkdir(parents=True, exist_ok=True)
    cap = cv2.VideoCapture(str(video))
    n = 0
    while limit < 0 or n < limit:
        ok, frame = cap.read()
        if not ok:
            break
        n += 1
        cv2.imwrite(str(out / f"{n:06d}.png"), frame)
    return n


def pixel_report(ours: Path, theirs: Path) -> str:
    diffs = []
    for a in sorted(ours.glob("*.png")):
        b = theirs / a.name
        if b.exists():
            diffs.append(cv2.imread(str(a)).astype(np.int16) - cv2.imread(str(b)).astype(np.int16))
    d = np.stack(diffs)
    bias = d.reshape(-1, 3).mean(axis=0)[::-1]  # BGR -> RGB
    a = np.abs(d)
    return (f"{len(diffs)} frames: mean |ours - OpenCV| {a.mean():.3f} levels, max {a.max()}; "
            f"bias R {bias[0]:+.3f} G {bias[1]:+.3f} B {bias[2]:+.3f}; "
            f"within 1 level {100 * (a <= 1).mean():.2f} %, within 2 {100 * (a <= 2).mean():.2f} %")


def exact_report(raw: Path, size: tuple, matrix: str, ours: Path, theirs: Path) -> str:
    """Frame 1 of each decode against the exact limited-range conversion of the decoder's YUV
    (nearest-neighbour chroma, as both decoders upsample it)."""
    w, h = size
    yuv = np.fromfile(raw, dtype=np.uint8, count=w * h * 3 // 2)
    y = yuv[:w * h].reshape(h, w).astype(float)
    u = yuv[w * h:w * h * 5 // 4].reshape(h // 2, w // 2).repeat(2, 0).repeat(2, 1).astype(float)
    v = yuv[w * h * 5 // 4:].reshape(h // 2, w // 2).repeat(2, 0).repeat(2, 1).astype(float)
    kr, kb = (0.299, 0.114) if matrix == "bt601" else (0.2126, 0.0722)
    y, u, v = (y - 16) / 219, (u - 128) / 224, (v - 128) / 224
    r, b = y + 2 * (1 - kr) * v, y + 2 * (1 - kb) * u
    g = (y - kr * r - kb * b) / (1 - kr - kb)
    exact = np.clip(np.stack([r, g, b], -1) * 255, 0, 255)
    lines = []
    for name, folder in (("ours", ours), ("OpenCV", theirs)):
        d = cv2.imread(str(folder / "000001.png"))[..., ::-1].astype(float) - exact
        bias = d.reshape(-1, 3).mean(axis=0)
        lines.append(f"{name} - exact: mean |d| {np.abs(d).mean():.3f}, bias R {bias[0]:+.3f} "
                     f"G {bias[1]:+.3f} B {bias[2]:+.3f}")
    return "; ".join(lines)


def ultralytics_boxes(model: str, frames: Path) -> dict:
    from ultralytics import YOLO

    boxes = {}
    for r in YOLO(model).predict(source=str(frames), stream=True, conf=0.25, device="cpu",
                                 verbose=False):
        b = r.boxes
        boxes[Path(r.path).stem] = [(int(c), *xyxy, float(p)) for c, xyxy, p in
                                    zip(b.cls.tolist(), b.xyxyn.tolist(), b.conf.tolist())]
    return boxes


def our_boxes(trainer: str, model: str, frames: Path, out: Path) -> dict:
    name = frames.name + "_predict"
    shutil.rmtree(out / name, ignore_errors=True)
    subprocess.run([trainer, "predict", f"model={model}", f"source={frames}", "save=False",
                    "save_txt=True", "save_conf=True", "conf=0.25", "device=cpu", "bf16=False",
                    f"project={out}", f"name={name}", "exist_ok=True"],
                   check=True, capture_output=True)
    boxes = {}
    for f in frames.glob("*.png"):
        rows = []
        label = out / name / "labels" / (f.stem + ".txt")
        for line in label.read_text().splitlines() if label.exists() else []:
            c, x, y, w, h, p = line.split()
            x, y, w, h = float(x), float(y), float(w), float(h)
            rows.append((int(c), x - w / 2, y - h / 2, x + w / 2, y + h / 2, float(p)))
        boxes[f.stem] = rows
    return boxes


def iou(a, b) -> float:
    w = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    h = max(0.0, min(a[4], b[4]) - max(a[2], b[2]))
    inter = w * h
    union = (a[3] - a[1]) * (a[4] - a[2]) + (b[3] - b[1]) * (b[4] - b[2]) - inter
    return inter / union if union > 0 else 0.0


def match_report(ours: dict, reference: dict) -> str:
    total = strict = loose = 0
    worst_conf = 0.0
    for frame, ref in reference.items():
        candidates = list(ours.get(frame, []))
        for r in sorted(ref, key=lambda b: -b[5]):
            total += 1
            same = [c for c in candidates if c[0] == r[0]]
            if not same:
                continue
            best = max(same, key=lambda c: iou(c, r))
            overlap = iou(best, r)
            if overlap < 0.5:
                continue
            candidates.remove(best)
            loose += 1
            worst_conf = max(worst_conf, abs(best[5] - r[5]))
            strict += overlap >= 0.95 and abs(best[5] - r[5]) <= 0.01
    extra = sum(len(v) for v in ours.values()) - loose
    return (f"{total} boxes of Ultralytics': {100 * strict / total:.2f} % matched at IoU >= 0.95 "
            f"and conf +-0.01, {100 * loose / total:.2f} % at IoU >= 0.5 (largest conf "
            f"difference {worst_conf:.4f}); {extra} of ours unmatched")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--video", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--out", default=str(ROOT / "runs/parity/decode"))
    p.add_argument("--frames", type=int, default=-1, help="first N frames only")
    p.add_argument("--raw-i420", help="the decoder's I420 output, frame 1 first")
    p.add_argument("--matrix", default="bt601", choices=["bt601", "bt709"])
    p.add_argument("--trainer", default=str(ROOT / "build/bin/yolo-trainer"))
    p.add_argument("--dumper", default=str(ROOT / "build/bin/parity_dump_decoded_frames"))
    args = p.parse_args()

    out = Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    n = opencv_frames(Path(args.video), out / "opencv", args.frames)
    subprocess.run([args.dumper, args.video, str(out / "ours"), "--frames", str(n)], check=True,
                   capture_output=True)
    print("pixels:", pixel_report(out / "ours", out / "opencv"))
    if args.raw_i420:
        first = cv2.imread(str(out / "opencv" / "000001.png"))
        size = (first.shape[1], first.shape[0])
        print("frame 1:", exact_report(Path(args.raw_i420), size, args.matrix, out / "ours",
                                       out / "opencv"))
    reference = ultralytics_boxes(args.model, out / "opencv")
    mine = our_boxes(args.trainer, args.model, out / "ours", out)
    same_pixels = our_boxes(args.trainer, args.model, out / "opencv", out)
    print("ours on our decode:   ", match_report(mine, reference))
    print("ours on OpenCV decode:", match_report(same_pixels, reference))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
