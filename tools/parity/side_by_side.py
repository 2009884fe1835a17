"""Ultralytics and yolo-trainer trained on the same images with the same arguments, side by side.

Dev/benchmark tool (the product never needs Python). Writes a synthetic set once with
`yolo-trainer synth` (both tools read the same folder), then for every model and seed trains
yolo-trainer and Ultralytics' YOLO on it from scratch with the same arguments and the same number
of intra-op threads, one after the other on the same machine, each in a fresh process. Prints both
results.csv per epoch and, at the end, one table of final mAP50 / mAP50-95 and wall time per run
with the means over seeds and our/Ultralytics ratios (also written to DIR/summary.md).

The last-epoch mAP each tool logs comes from the set's own small validation split (16 images on
the training benchmark), where one seed swings it by a quarter. So every run's final weights
(last.pt, the EMA) are also scored on a large held-out set from the same generator (--holdout
images, another seed) by one evaluator, Ultralytics' own `val` (our checkpoints are TorchScript,
which it loads; both with square imgsz batches), so the two tools' models are measured alike.

    python tools/parity/side_by_side.py [--out DIR] [--synth "images=64 nc=3 imgsz=320 seed=0"] \
        [--models yolov8n.yaml,yolo26n.yaml] [--seeds 0,1] [--threads N] [--holdout 512] \
        [key=value ...]

Defaults: the training benchmark (model=yolov8n.yaml epochs=60 batch=16 imgsz=320 device=cpu
workers=2), plots=False (Ultralytics would fetch a font for its plots; this machine reaches PyPI
only), threads = all cores for both tools. Ultralytics on CPU sets torch to `cores - 1` threads
(utils.NUM_THREADS); here both tools get --threads, so the wall times compare like with like.
"""

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULTS = {"epochs": "60", "batch": "16", "imgsz": "320", "device": "cpu", "workers": "2",
            "plots": "False"}
# The third loss is dfl_loss, or l1_loss for models without DFL (YOLO26: reg_max 1).
KEYS = ["train/box_loss", "train/cls_loss", ("train/dfl_loss", "train/l1_loss"), "metrics/mAP50(B)",
        "metrics/mAP50-95(B)"]
SHORT = ["box", "cls", "dfl/l1", "mAP50", "mAP50-95"]


def cell(row: dict, key) -> str:
    for k in (key if isinstance(key, tuple) else (key,)):
        if k in row:
            return f"{float(row[k]):.4f}"
    return "?"


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

    args = {k: typed(v) for k, v in s["args"].items()}
    # From scratch for a YAML (as ours); a weights file is fine-tuned unless pretrained= says.
    args.setdefault("pretrained", not s["model"].endswith((".yaml", ".yml")))
    YOLO(s["model"]).train(data=s["data"], project=s["project"], name=s["name"], exist_ok=True,
                           **args)


def val_child(spec: str) -> None:
    """Runs in a fresh process: Ultralytics' val of one weights file; prints the metrics."""
    s = json.loads(spec)
    os.environ.setdefault("YOLO_OFFLINE", "1")
    from ultralytics import YOLO

    r = YOLO(s["weights"], task="detect").val(data=s["data"], imgsz=s["imgsz"], batch=16,
                                               device="cpu", rect=False, plots=False,
                                               project=s["project"], name="holdout_val",
                                               exist_ok=True, verbose=False)
    print("HOLDOUT " + json.dumps({"map50": float(r.box.map50), "map": float(r.box.map)}))


def holdout_score(run_dir: Path, holdout_yaml: Path, imgsz: str) -> dict:
    """mAP of run_dir/weights/last.pt on the held-out set, by Ultralytics' val (cached)."""
    cache = run_dir / "holdout.json"
    if not cache.exists():
        weights = run_dir / "weights" / "last.pt"
        with zipfile.ZipFile(weights) as z:  # TorchScript (ours) has code; a torch.save has not
            torchscript = any(n.endswith("/constants.pkl") for n in z.namelist())
        if torchscript:  # Ultralytics picks its loader by the file's suffix
            ts = run_dir / "weights" / "last.torchscript"
            shutil.copyfile(weights, ts)
            weights = ts
        spec = {"weights": str(weights), "data": str(holdout_yaml), "imgsz": int(imgsz),
                "project": str(run_dir)}
        res = subprocess.run([sys.executable, __file__, "--val-child", json.dumps(spec)],
                             check=True, capture_output=True, text=True)
        line = [x for x in res.stdout.splitlines() if x.startswith("HOLDOUT ")][-1]
        cache.write_text(line[len("HOLDOUT "):] + "\n")
    return json.loads(cache.read_text())


def run_pair(a, data: Path, out: Path, model: str, seed: int, args: dict,
             holdout_yaml: Path) -> dict:
    tag = f"{Path(model).stem}_seed{seed}"
    run_args = dict(args, seed=str(seed))
    spec = {"model": model, "data": str(data / "data.yaml"), "project": str(out),
            "name": f"{tag}_ultralytics", "threads": a.threads, "args": run_args}
    commands = {
        "yolo-trainer": (f"{tag}_ours", [
            a.trainer, "train", f"model={model}", f"data={data / 'data.yaml'}", f"project={out}",
            f"name={tag}_ours", "exist_ok=True", f"threads={a.threads}",
            *[f"{k}={v}" for k, v in run_args.items()]]),
        "Ultralytics": (f"{tag}_ultralytics",
                        [sys.executable, __file__, "--ultralytics-child", json.dumps(spec)]),
    }
    runs = {}
    for tool, (name, cmd) in commands.items():
        wall_file = out / f"{name}.wall_s"  # written only when the run completed
        if not wall_file.exists():  # a finished run is kept: rerunning the script resumes
            t0 = time.time()
            subprocess.run(cmd, check=True)
            wall_file.write_text(f"{time.time() - t0:.1f}\n")
        runs[tool] = (float(wall_file.read_text()), out / name / "results.csv")

    tables = {name: read_results(path) for name, (_, path) in runs.items()}
    names = list(tables)
    lines = [f"\n{model}, seed {seed}: same images ({data}), same arguments "
             f"({' '.join(f'{k}={v}' for k, v in run_args.items())}), threads={a.threads}\n",
             "| epoch | " + " | ".join(f"{n} {s}" for s in SHORT for n in names) + " |",
             "|" + "---|" * (1 + len(SHORT) * len(names))]
    for e in range(max(len(t) for t in tables.values())):
        cells = [cell(tables[n][e], k) if e < len(tables[n]) else "" for k in KEYS for n in names]
        lines.append(f"| {e + 1} | " + " | ".join(cells) + " |")
    (out / f"{tag}_epochs.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)
    result = {}
    for n in names:
        held = holdout_score(runs[n][1].parent, holdout_yaml, run_args["imgsz"])
        result[n] = {"wall": runs[n][0], "map50": float(tables[n][-1]["metrics/mAP50(B)"]),
                     "map": float(tables[n][-1]["metrics/mAP50-95(B)"]),
                     "hold50": held["map50"], "hold": held["map"]}
    return result


COLS = [("map50", "mAP50 (own val)"), ("map", "mAP50-95 (own val)"),
        ("hold50", "held-out mAP50"), ("hold", "held-out mAP50-95"), ("wall", "wall s")]


def summary(results: dict, synth: str, threads: int, holdout: int) -> str:
    lines = [f"Set `synth {synth}`, threads={threads} for both tools; held-out: {holdout} more "
             "images of the same generator (another seed), scored by Ultralytics' val.\n",
             "| model | seed | " + " | ".join(f"{t} {c}" for _, c in COLS
                                               for t in ("ours", "Ultralytics")) + " |",
             "|---|---|" + "---|" * (2 * len(COLS))]
    fmt = lambda k, v: f"{v:.0f}" if k == "wall" else f"{v:.3f}"  # noqa: E731
    for model, seeds in results.items():
        for seed, r in seeds.items():
            cells = [fmt(k, r[t][k]) for k, _ in COLS for t in ("yolo-trainer", "Ultralytics")]
            lines.append(f"| {model} | {seed} | " + " | ".join(cells) + " |")
        mean = {t: {k: statistics.mean(r[t][k] for r in seeds.values()) for k, _ in COLS}
                for t in ("yolo-trainer", "Ultralytics")}
        o, u = mean["yolo-trainer"], mean["Ultralytics"]
        cells = [fmt(k, m[k]) for k, _ in COLS for m in (o, u)]
        lines.append(f"| **{model}** | mean | " + " | ".join(cells) + " |")
        cells = []
        for k, _ in COLS:
            cells += [f"**{o[k] / u[k]:.2f}x**" if u[k] > 0 else "n/a", ""]
        lines.append(f"| **{model}** | ours / Ultralytics | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--ultralytics-child":
        return ultralytics_child(sys.argv[2])
    if len(sys.argv) == 3 and sys.argv[1] == "--val-child":
        return val_child(sys.argv[2])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "runs/parity/side_by_side"))
    ap.add_argument("--synth", default="images=64 nc=3 imgsz=320 seed=0")
    ap.add_argument("--data", help="a dataset YAML of your own (real photos) instead of --synth; "
                    "its val split is also the held-out set")
    ap.add_argument("--models", default="yolov8n.yaml")
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--holdout", type=int, default=512, help="held-out images for scoring")
    ap.add_argument("--trainer", default=str(ROOT / "build/bin/yolo-trainer"))
    ap.add_argument("args", nargs="*", help="train arguments key=value")
    a = ap.parse_args()
    out = Path(a.out).resolve()
    args = dict(DEFAULTS)
    args.update(kv.split("=", 1) for kv in a.args)

    data = Path(a.data).resolve().parent if a.data else out / "data"
    if not (data / "data.yaml").exists():
        subprocess.run([a.trainer, "synth", f"dir={data}", *a.synth.split()], check=True)

    holdout = data if a.data else out / "holdout"
    if not (holdout / "data.yaml").exists():
        synth = dict(kv.split("=", 1) for kv in a.synth.split())
        synth.update(images=str(4 * a.holdout), seed=str(1000 + int(synth.get("seed", 0))))
        subprocess.run([a.trainer, "synth", f"dir={holdout}", *[f"{k}={v}" for k, v in synth.items()]],
                       check=True)
    results: dict = {}
    for model in a.models.split(","):
        for seed in (int(s) for s in a.seeds.split(",")):
            results.setdefault(model, {})[seed] = run_pair(a, data, out, model, seed, args,
                                                           holdout / "data.yaml")
            (out / "summary.json").write_text(json.dumps(results, indent=1))
    text = summary(results, a.synth, a.threads, a.holdout)
    (out / "summary.md").write_text(text)
    print("\n" + text)


if __name__ == "__main__":
    sys.exit(main())
