"""Ultralytics and yolo-trainer trained on the same images with the same arguments, side by side.

Dev/benchmark tool (the product never needs Python). Writes a synthetic set once with
`yolo-trainer synth` (both tools read the same folder), then for every model and seed trains
yolo-trainer and Ultralytics' YOLO on it from scratch with the same arguments and the same number
of intra-op threads, one after the other on the same machine, each in a fresh process. Prints both
results.csv per epoch and, at the end, one table of final mAP50 / mAP50-95 and wall time per run
with the means over seeds and our/Ultralytics ratios (also written to DIR/summary.md).

    python tools/parity/side_by_side.py [--out DIR] [--synth "images=64 nc=3 imgsz=320 seed=0"] \
        [--models yolov8n.yaml,yolo26n.yaml] [--seeds 0,1] [--threads N] [key=value ...]

Defaults: the training benchmark (model=yolov8n.yaml epochs=60 batch=16 imgsz=320 device=cpu
workers=2), plots=False (Ultralytics would fetch a font for its plots; this machine reaches PyPI
only), threads = all cores for both tools. Ultralytics on CPU sets torch to `cores - 1` threads
(utils.NUM_THREADS); here both tools get --threads, so the wall times compare like with like.
"""

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULTS = {"epochs": "60", "batch": "16", "imgsz": "320", "device": "cpu", "workers": "2",
            "plots": "False"}
KEYS = ["train/box_loss", "train/cls_loss", "train/dfl_loss", "metrics/mAP50(B)",
        "metrics/mAP50-95(B)"]
SHORT = ["box", "cls", "dfl", "mAP50", "mAP50-95"]


def read_results(path: Path) -> list[dict]:
    with open(path) as f:
        return [{k.strip(): v.strip() for k, v in row.items()} for row in csv.DictReader(f)]


def typed(v: str):
    if v in ("True", "False"):
        return v == "True"
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    return v


def ultralytics_child(spec: str) -> None:
    """Runs in a fresh process: one Ultralytics training from a JSON spec."""
    s = json.loads(spec)
    os.environ.setdefault("YOLO_OFFLINE", "1")
    import ultralytics.utils.torch_utils as tu

    tu.NUM_THREADS = s["threads"]  # select_device() calls torch.set_num_threads(NUM_THREADS)
    from ultralytics import YOLO

    YOLO(s["model"]).train(data=s["data"], project=s["project"], name=s["name"], exist_ok=True,
                           pretrained=False, **{k: typed(v) for k, v in s["args"].items()})


def run_pair(a, data: Path, out: Path, model: str, seed: int, args: dict) -> dict:
    tag = f"{Path(model).stem}_seed{seed}"
    run_args = dict(args, seed=str(seed))
    runs = {}
    t0 = time.time()
    subprocess.run([a.trainer, "train", f"model={model}", f"data={data / 'data.yaml'}",
                    f"project={out}", f"name={tag}_ours", "exist_ok=True", f"threads={a.threads}",
                    *[f"{k}={v}" for k, v in run_args.items()]], check=True)
    runs["yolo-trainer"] = (time.time() - t0, out / f"{tag}_ours/results.csv")
    spec = {"model": model, "data": str(data / "data.yaml"), "project": str(out),
            "name": f"{tag}_ultralytics", "threads": a.threads, "args": run_args}
    t0 = time.time()
    subprocess.run([sys.executable, __file__, "--ultralytics-child", json.dumps(spec)], check=True)
    runs["Ultralytics"] = (time.time() - t0, out / f"{tag}_ultralytics/results.csv")

    tables = {name: read_results(path) for name, (_, path) in runs.items()}
    names = list(tables)
    lines = [f"\n{model}, seed {seed}: same images ({data}), same arguments "
             f"({' '.join(f'{k}={v}' for k, v in run_args.items())}), threads={a.threads}\n",
             "| epoch | " + " | ".join(f"{n} {s}" for s in SHORT for n in names) + " |",
             "|" + "---|" * (1 + len(SHORT) * len(names))]
    for e in range(max(len(t) for t in tables.values())):
        cells = [f"{float(tables[n][e][k]):.4f}" if e < len(tables[n]) else ""
                 for k in KEYS for n in names]
        lines.append(f"| {e + 1} | " + " | ".join(cells) + " |")
    (out / f"{tag}_epochs.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)
    return {n: {"wall": runs[n][0], "map50": float(tables[n][-1]["metrics/mAP50(B)"]),
                "map": float(tables[n][-1]["metrics/mAP50-95(B)"])} for n in names}


def summary(results: dict, synth: str, threads: int) -> str:
    lines = [f"Set `synth {synth}`, threads={threads} for both tools.\n",
             "| model | seed | ours mAP50 | Ultralytics mAP50 | ours mAP50-95 | Ultralytics mAP50-95 "
             "| ours wall s | Ultralytics wall s |",
             "|---|---|---|---|---|---|---|---|"]
    for model, seeds in results.items():
        for seed, r in seeds.items():
            o, u = r["yolo-trainer"], r["Ultralytics"]
            lines.append(f"| {model} | {seed} | {o['map50']:.3f} | {u['map50']:.3f} | {o['map']:.3f} "
                         f"| {u['map']:.3f} | {o['wall']:.0f} | {u['wall']:.0f} |")
        mean = {t: {k: statistics.mean(r[t][k] for r in seeds.values())
                    for k in ("map50", "map", "wall")} for t in ("yolo-trainer", "Ultralytics")}
        o, u = mean["yolo-trainer"], mean["Ultralytics"]
        lines.append(f"| **{model}** | mean | {o['map50']:.3f} | {u['map50']:.3f} | {o['map']:.3f} "
                     f"| {u['map']:.3f} | {o['wall']:.0f} | {u['wall']:.0f} |")
        ratio = lambda k: o[k] / u[k] if u[k] > 0 else float("nan")  # noqa: E731
        lines.append(f"| **{model}** | ours / Ultralytics | {ratio('map50'):.2f}x | "
                     f"| {ratio('map'):.2f}x | | {ratio('wall'):.2f}x | |")
    return "\n".join(lines) + "\n"


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--ultralytics-child":
        return ultralytics_child(sys.argv[2])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "runs/parity/side_by_side"))
    ap.add_argument("--synth", default="images=64 nc=3 imgsz=320 seed=0")
    ap.add_argument("--models", default="yolov8n.yaml")
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--trainer", default=str(ROOT / "build/bin/yolo-trainer"))
    ap.add_argument("args", nargs="*", help="train arguments key=value")
    a = ap.parse_args()
    out = Path(a.out).resolve()
    args = dict(DEFAULTS)
    args.update(kv.split("=", 1) for kv in a.args)

    data = out / "data"
    if not (data / "data.yaml").exists():
        subprocess.run([a.trainer, "synth", f"dir={data}", *a.synth.split()], check=True)

    results: dict = {}
    for model in a.models.split(","):
        for seed in (int(s) for s in a.seeds.split(",")):
            results.setdefault(model, {})[seed] = run_pair(a, data, out, model, seed, args)
            (out / "summary.json").write_text(json.dumps(results, indent=1))
    text = summary(results, a.synth, a.threads)
    (out / "summary.md").write_text(text)
    print("\n" + text)


if __name__ == "__main__":
    sys.exit(main())
