#!/usr/bin/env python3
"""Prediction end to end, side by side: ours, Ultralytics on the same TorchScript export, and
Ultralytics with ONNX Runtime and with OpenVINO on the same weights exported to ONNX and to
OpenVINO (the engines a CPU user picks for speed; DL Streamer is built on OpenVINO).

    tools/install-deps.sh --oracle --bench-peers     # Ultralytics, ONNX Runtime, OpenVINO (bench only)
    PY=/opt/yolo-edge/venv/bin/python
    $PY tools/bench/predict_side_by_side.py --out runs/bench/predict

For each model and input size, Ultralytics builds the model from its YAML (random weights: speed
does not depend on them), or loads --weights (a real .pt), and exports it to TorchScript, ONNX
and OpenVINO. --source DIR reads real frames instead of the synthetic images. --fp32 adds a row
of ours in FP32 (bf16=False) beside ours at its default precision (BF16 autocast on a CPU with
native BF16). The three commands then run
as a user types them, one after the other in each round, so that a drift of the machine hits all
alike:

    yolo-trainer predict model=M.torchscript source=DIR save=False batch=B ...
    yolo predict model=M.torchscript source=DIR save=False batch=B ...
    yolo predict model=M.onnx source=DIR save=False batch=B ...
    yolo predict model=M_openvino_model source=DIR save=False batch=B ...

With --track the three run `track` instead on a synthetic 640x360 video (frames one by one, as
a camera gives them; `tracker=bytetrack.yaml` unless --tracker says otherwise):

    yolo-trainer track model=M.torchscript source=VIDEO tracker=bytetrack.yaml save=False ...
    yolo track model=M.torchscript source=VIDEO tracker=bytetrack.yaml save=False ...
    yolo track model=M.onnx source=VIDEO tracker=bytetrack.yaml save=False ...

The table gives each one's wall time per image (the whole command: start-up, model load and every
image, over the image count) and its "Speed:" line per image (preprocess + inference +
postprocess, what each program reports itself), as medians over the rounds, and the ratios of
each to Ultralytics' TorchScript run with their range over the rounds. A second table gives ours
against ONNX Runtime the same way (the ratio of each round's two runs).
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

SPEED = re.compile(r"Speed: ([0-9.]+)ms preprocess, ([0-9.]+)ms inference, ([0-9.]+)ms postprocess")


def run_logged(cmd, cwd):
    """Runs a predict command: its wall time, its Speed line's sum, and what it printed."""
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    out = r.stdout + r.stderr
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(map(str, cmd))}\n{out[-3000:]}")
    m = SPEED.search(out)
    if not m:
        sys.exit(f"no Speed line from: {' '.join(map(str, cmd))}\n{out[-3000:]}")
    return wall, sum(float(x) for x in m.groups()), out


def run(cmd, cwd):
    wall, speed, _ = run_logged(cmd, cwd)
    return wall, speed


def export(yaml, imgsz, folder, peers):
    """The same weights as TorchScript and as each peer's format, by Ultralytics' own exporter:
    {"torchscript": path, "onnx": path, "openvino": folder}."""
    from ultralytics import YOLO

    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{Path(yaml).stem}-{imgsz}"
    wanted = {"torchscript": folder / f"{stem}.torchscript", "onnx": folder / f"{stem}.onnx",
              "openvino": folder / f"{stem}_openvino_model"}
    wanted = {k: v for k, v in wanted.items() if k == "torchscript" or k in peers}
    if all(p.exists() for p in wanted.values()):
        return wanted
    model = YOLO(yaml)
    for fmt, dst in wanted.items():
        out = Path(model.export(format=fmt, imgsz=imgsz, device="cpu", verbose=False))
        if dst.exists():
            shutil.rmtree(dst) if dst.is_dir() else dst.unlink()
        shutil.move(str(out), dst)
    return wanted


def synthetic_source(args, trainer, out):
    """The images (or with --track the video) every program reads, and how many frames that is."""
    if args.source:
        source = Path(args.source).resolve()
        exts = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}
        return source, len([p for p in source.iterdir() if p.suffix.lower() in exts])
    data = out / ("video" if args.track else "data")
    if not (data / "images" / "train").exists():
        extra = ["video=True", f"frames={args.frames}", "images=4"] if args.track else [f"images={args.images}"]
        subprocess.run([trainer, "synth", f"dir={data}", *extra, "imgsz=640", "nc=3", "seed=5"], check=True,
                       capture_output=True)
    if args.track:
        return data / "video" / "synthetic.mp4", args.frames
    source = data / "images" / "train"
    return source, len(list(source.glob("*.jpg")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="runs/bench/predict")
    ap.add_argument("--models", default="yolov8n.yaml,yolo26n.yaml")
    ap.add_argument("--imgsz", default="320,640")
    ap.add_argument("--batches", default="1,8")
    ap.add_argument("--images", type=int, default=48)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--trainer", default="build/bin/yolo-trainer")
    ap.add_argument("--track", action="store_true", help="time `track` on a video instead")
    ap.add_argument("--tracker", default="bytetrack.yaml")
    ap.add_argument("--frames", type=int, default=150, help="video frames with --track")
    ap.add_argument("--source", help="a folder of real frames to read instead of synthetic images")
    ap.add_argument("--weights", help="a real .pt to export instead of the YAMLs' random weights")
    ap.add_argument("--peers", default="onnx,openvino", help="engines beside Ultralytics' TorchScript")
    ap.add_argument("--fp32", action="store_true", help="also ours with bf16=False")
    ap.add_argument("--threads", type=int, default=0, help="limit every program to N threads")
    args = ap.parse_args()
    peers = [p for p in args.peers.split(",") if p]
    if args.threads:
        # LibTorch and ONNX Runtime read it; OpenVINO sizes its own pool (to the cores).
        os.environ["OMP_NUM_THREADS"] = str(args.threads)
    if args.track:
        args.batches = "1"  # a tracker takes the frames in order, one at a time

    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    trainer = str(Path(args.trainer).resolve())
    yolo = str(Path(sys.executable).with_name("yolo"))
    source, n_images = synthetic_source(args, trainer, out)
    mode = "track" if args.track else "predict"

    rows = []
    against_peer = []  # ours / each peer, per round
    ours = "ours (yolo-trainer, TorchScript)"
    peer_names = {"onnx": "Ultralytics, ONNX Runtime", "openvino": "Ultralytics, OpenVINO"}
    models = [args.weights] if args.weights else args.models.split(",")
    for yaml in models:
        for imgsz in map(int, args.imgsz.split(",")):
            files = export(yaml, imgsz, out / "models", peers)
            ts = files["torchscript"]
            for batch in map(int, args.batches.split(",")):
                common = [f"source={source}", "save=False", "device=cpu", f"imgsz={imgsz}", f"batch={batch}"]
                if args.track:
                    common.append(f"tracker={args.tracker}")
                cmds = {ours: [trainer, mode, f"model={ts}", *common]}
                if args.fp32:
                    cmds["ours, FP32 (bf16=False)"] = [trainer, mode, f"model={ts}", *common, "bf16=False"]
                cmds["Ultralytics, TorchScript"] = [yolo, mode, f"model={ts}", *common]
                for peer in peers:
                    cmds[peer_names[peer]] = [yolo, mode, f"model={files[peer]}", *common]
                walls = {k: [] for k in cmds}
                speeds = {k: [] for k in cmds}
                for _ in range(args.rounds):
                    for name, cmd in cmds.items():
                        w, s = run(cmd, out)
                        walls[name].append(w / n_images * 1000)
                        speeds[name].append(s)
                for peer in peers:
                    name = peer_names[peer]
                    against_peer.append((Path(yaml).stem, imgsz, batch, name,
                                         [a / b for a, b in zip(walls[ours], walls[name])],
                                         [a / b for a, b in zip(speeds[ours], speeds[name])]))
                base = "Ultralytics, TorchScript"
                for name in cmds:
                    ratios = [a / b for a, b in zip(walls[name], walls[base])]
                    speed_ratios = [a / b for a, b in zip(speeds[name], speeds[base])]
                    rows.append((Path(yaml).stem, imgsz, batch, name, statistics.median(walls[name]),
                                 statistics.median(speeds[name]), statistics.median(ratios), min(ratios),
                                 max(ratios), statistics.median(speed_ratios), min(speed_ratios),
                                 max(speed_ratios)))
                print(f"measured {yaml} {imgsz} px batch {batch}", file=sys.stderr, flush=True)

    import torch
    import ultralytics

    versions = [f"ultralytics {ultralytics.__version__}", f"torch {torch.__version__}"]
    if "onnx" in peers:
        import onnxruntime

        versions.append(f"onnxruntime {onnxruntime.__version__}")
    if "openvino" in peers:
        import openvino

        versions.append(f"openvino {openvino.__version__.split('-')[0]}")
    what = (f"{n_images} real frames from {source}" if args.source else f"{n_images} images of 640 px (synthetic)")

    table = [
        (f"Tracking ({args.tracker}) on {n_images} frames of a 640x360 synthetic video"
         if args.track else f"Prediction on {what}")
        + f", CPU, {args.threads or os.cpu_count()} threads; " + ", ".join(versions) + "; "
        f"median of {args.rounds} alternating rounds; ratio to Ultralytics' TorchScript run (range over the rounds)",
        "",
        "| model | imgsz | batch | program | wall ms/image | wall ratio (range) | Speed ms/image | Speed ratio (range) |",
        "|---|---:|---:|---|---:|---|---:|---|",
    ]
    for m, s, b, name, wall, speed, ratio, lo, hi, sratio, slo, shi in rows:
        table.append(f"| {m} | {s} | {b} | {name} | {wall:.1f} | {ratio:.2f}x ({lo:.2f}-{hi:.2f}) | {speed:.1f} "
                     f"| {sratio:.2f}x ({slo:.2f}-{shi:.2f}) |")
    table += ["", "Ours (default precision) against each peer (median of the per-round ratios, range over the "
              "rounds; below 1 is faster):", "",
              "| model | imgsz | batch | peer | wall ours / peer | Speed ours / peer |",
              "|---|---:|---:|---|---|---|"]
    for m, s, b, name, w, sp in against_peer:
        table.append(f"| {m} | {s} | {b} | {name} | {statistics.median(w):.2f}x ({min(w):.2f}-{max(w):.2f}) "
                     f"| {statistics.median(sp):.2f}x ({min(sp):.2f}-{max(sp):.2f}) |")
    text = "\n".join(table) + "\n"
    print(text)
    (out / f"{mode}.md").write_text(text)


if __name__ == "__main__":
    main()
