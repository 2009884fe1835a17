"""BF16 autocast training against FP32, on a family of synthetic sets, seeds pooled.

Dev/benchmark tool (the product never needs Python). On a CPU with native BF16 (AVX-512 BF16 or
AMX) `yolo-trainer train` uses BF16 autocast by default (amp=True); amp=False trains in FP32.
This script trains both on the same images, for every set of a family that changes one property
at a time from a base set (class count, classes told by colour instead of shape, object size,
object count, clutter and noise, PNG instead of JPEG), and every seed, and
scores each run's final weights (last.pt, the EMA) on held-out images of the same generator with
one evaluator, Ultralytics' `val` (side_by_side.py's holdout_score). A single short run swings by
tens of per cent with the seed, so the verdict is the pooled ratio over sets and seeds with its
95 % interval (pool_seeds.py's report), per set and over the whole family.

    python tools/parity/precision_family.py [--out DIR] [--models yolov8n.yaml] \
        [--sets base,nc1,nc10,colour,small,crowded,plain,png] [--seeds 0,1,2,3] [--holdout 256] \
        [key=value ...]

Writes DIR/summary.json (pool_seeds.py reads it: `pool_seeds.py DIR/summary.json`) and
DIR/summary.md. Finished runs are kept: rerunning resumes.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pool_seeds import report  # noqa: E402
from side_by_side import holdout_score, read_results  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BASE = {"images": "128", "imgsz": "192", "nc": "3", "objects": "3", "min_size": "0.2",
        "max_size": "0.45", "clutter": "true", "seed": "0"}
# One property changed at a time from BASE. Every set's images are rectangular (each image's
# short side is 50-100 % of its long side, landscape or portrait) and trained letterboxed.
FAMILY = {
    "base": {},
    "nc1": {"nc": "1"},
    "nc10": {"nc": "10"},
    "colour": {"cue": "colour"},  # classes told by colour, not shape
    "small": {"min_size": "0.06", "max_size": "0.15"},
    "crowded": {"objects": "12"},
    "plain": {"clutter": "false"},  # no texture, distractor lines or sensor noise
    "png": {"image_format": "png"},  # lossless images instead of JPEG at quality 90
}
DEFAULTS = {"epochs": "40", "batch": "16", "imgsz": "192", "device": "cpu", "workers": "2",
            "plots": "False"}
PRECISIONS = {"BF16": "True", "FP32": "False"}  # label -> amp=


def synth(trainer: str, folder: Path, options: dict) -> Path:
    if not (folder / "data.yaml").exists():
        subprocess.run([trainer, "synth", f"dir={folder}",
                        *[f"{k}={v}" for k, v in options.items()]], check=True)
    return folder / "data.yaml"


def train(a, out: Path, name: str, data: Path, args: dict) -> float:
    """One yolo-trainer run; its wall seconds (a finished run is not repeated)."""
    wall_file = out / f"{name}.wall_s"
    if not wall_file.exists():
        t0 = time.time()
        subprocess.run([a.trainer, "train", f"data={data}", f"project={out}", f"name={name}",
                        "exist_ok=True", f"threads={a.threads}",
                        *[f"{k}={v}" for k, v in args.items()]], check=True)
        wall_file.write_text(f"{time.time() - t0:.1f}\n")
    return float(wall_file.read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "runs/parity/precision_family"))
    ap.add_argument("--models", default="yolov8n.yaml")
    ap.add_argument("--sets", default=",".join(FAMILY))
    ap.add_argument("--seeds", default="0,1,2,3")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--holdout", type=int, default=256, help="held-out images for scoring")
    ap.add_argument("--trainer", default=str(ROOT / "build/bin/yolo-trainer"))
    ap.add_argument("args", nargs="*", help="train arguments key=value")
    a = ap.parse_args()
    unknown = [s for s in a.sets.split(",") if s not in FAMILY]
    if unknown:
        sys.exit(f"precision_family: unknown set(s) {unknown}; the family is {list(FAMILY)}")
    out = Path(a.out).resolve()
    args = dict(DEFAULTS)
    args.update(kv.split("=", 1) for kv in a.args)

    results: dict = {}
    for set_name in a.sets.split(","):
        options = dict(BASE, **FAMILY[set_name])
        data = synth(a.trainer, out / set_name / "data", options)
        holdout = synth(a.trainer, out / set_name / "holdout",
                        dict(options, images=str(4 * a.holdout), seed="1000"))
        for model in a.models.split(","):
            for seed in (int(s) for s in a.seeds.split(",")):
                row = {}
                for label, amp in PRECISIONS.items():
                    name = f"{set_name}_{Path(model).stem}_seed{seed}_{label.lower()}"
                    run_args = dict(args, model=model, seed=str(seed), amp=amp)
                    wall = train(a, out, name, data, run_args)
                    rows = read_results(out / name / "results.csv")
                    held = holdout_score(out / name, holdout, run_args["imgsz"])
                    row[label] = {"wall": wall, "map50": float(rows[-1]["metrics/mAP50(B)"]),
                                  "map": float(rows[-1]["metrics/mAP50-95(B)"]),
                                  "hold50": held["map50"], "hold": held["map"]}
                results.setdefault(f"{Path(model).stem} {set_name}", {})[seed] = row
                (out / "summary.json").write_text(json.dumps(
                    {"labels": list(PRECISIONS), "results": results}, indent=1))

    labels = list(PRECISIONS)
    parts = []
    for metric in ("hold", "wall"):
        pooled = {}
        for key, seeds in results.items():
            pairs = {s: (r[labels[0]][metric], r[labels[1]][metric], key) for s, r in seeds.items()}
            parts.append(report(key, pairs, metric, labels))
            for s, p in pairs.items():
                pooled[len(pooled)] = p
        parts.append(report(f"the whole family ({len(pooled)} set-seed pairs)", pooled, metric,
                            labels))
    walls = [r[l]["wall"] for seeds in results.values() for r in seeds.values() for l in labels]
    text = (f"BF16 autocast (amp=True) against FP32 (amp=False), yolo-trainer, threads={a.threads}, "
            f"{' '.join(f'{k}={v}' for k, v in args.items())}; held-out: {a.holdout} images per "
            f"set, scored by Ultralytics' val; {statistics.mean(walls):.0f} s per run on average.\n\n"
            + "\n\n".join(parts) + "\n")
    (out / "summary.md").write_text(text)
    print("\n" + text)


if __name__ == "__main__":
    sys.exit(main())
