"""Pools side_by_side.py runs over seeds: per-seed differences, their t, and the ratio's interval.

Dev/benchmark tool. Every side_by_side.py run writes DIR/summary.json; a gap of a few per cent
between the two tools is smaller than one seed's spread (one 60-epoch run moves held-out
mAP50-95 by +-0.05 on the quickstart set), so runs from several folders (say, two processes on
one core each) are read together and treated as paired samples, one pair per seed.

    python tools/parity/pool_seeds.py DIR/summary.json [...] [--metric hold] \
        [--row yolo26n.yaml,8,0.381,0.455 ...]

It also reads precision_family.py's summary.json, whose pairs are BF16 and FP32 runs of ours
(the file names its two labels). --row adds a pair measured elsewhere (model, seed, ours, Ultralytics), for rows kept only in
docs/benchmarks.md. A seed found twice for one model is refused: pooling must not count a run
twice. The interval is mean(ours - Ultralytics) +- t(0.975, n - 1) x s.e., divided by
Ultralytics' mean (the ratio's interval, to first order).
"""

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

from side_by_side import COLS  # the summary.json keys and their column names

METRICS = dict(COLS)


def t_quantile(dof: int) -> float:
    """Two-sided 95 % quantile of Student's t (scipy when present, else the normal's 1.96)."""
    try:
        from scipy.stats import t

        return float(t.ppf(0.975, dof))
    except ImportError:
        return 1.96


def read_pairs(paths: list[str], rows: list[str], metric: str) -> tuple[dict, list[str]]:
    """{model: {seed: (first, second, where)}} and the two labels (ours and Ultralytics unless a
    file names others)."""
    pairs: dict = {}
    labels = ["yolo-trainer", "Ultralytics"]

    def add(model: str, seed: int, ours: float, ul: float, where: str) -> None:
        seeds = pairs.setdefault(model, {})
        if seed in seeds:
            sys.exit(f"pool_seeds: {model} seed {seed} appears twice ({seeds[seed][2]} and "
                     f"{where}); give each seed once")
        seeds[seed] = (ours, ul, where)

    for p in paths:
        try:
            results = json.loads(Path(p).read_text())
        except (OSError, json.JSONDecodeError) as e:
            sys.exit(f"pool_seeds: cannot read {p}: {e} (expected a side_by_side.py summary.json)")
        if "labels" in results:  # precision_family.py: {"labels": [a, b], "results": {...}}
            labels, results = results["labels"], results["results"]
        for model, seeds in results.items():
            for seed, r in seeds.items():
                add(model, int(seed), r[labels[0]][metric], r[labels[1]][metric], p)
    for row in rows:
        parts = row.split(",")
        if len(parts) != 4:
            sys.exit(f"pool_seeds: --row '{row}' must be model,seed,ours,ultralytics")
        add(parts[0], int(parts[1]), float(parts[2]), float(parts[3]), "--row")
    return pairs, labels


def report(model: str, seeds: dict, metric: str, labels=("ours", "Ultralytics")) -> str:
    """The pairs' table, the ratio of means and its 95 % interval; labels name the two columns."""
    a, b = labels
    order = sorted(seeds)
    ours = [seeds[s][0] for s in order]
    ul = [seeds[s][1] for s in order]
    diff = [o - u for o, u in zip(ours, ul)]
    n = len(diff)
    lines = [f"{model}, {METRICS[metric]}, {n} seeds ({', '.join(map(str, order))})",
             f"| seed | {a} | {b} | {a} - {b} |", "|---|---|---|---|"]
    lines += [f"| {s} | {o:.3f} | {u:.3f} | {d:+.3f} |" for s, o, u, d in zip(order, ours, ul, diff)]
    mo, mu, md = statistics.mean(ours), statistics.mean(ul), statistics.mean(diff)
    lines.append(f"| mean | {mo:.3f} | {mu:.3f} | {md:+.4f} |")
    ratio = mo / mu if mu else float("nan")
    text = f"ratio of means {ratio:.3f}x; {a} lower on {sum(d < 0 for d in diff)} of {n}"
    if n >= 2:
        se = statistics.stdev(diff) / math.sqrt(n)
        half = t_quantile(n - 1) * se
        t = md / se if se else float("inf")
        text += (f"; difference {md:+.4f} +- {se:.4f} s.e. (t {t:.2f}); 95 % interval of the "
                 f"ratio {(mu + md - half) / mu:.3f}x to {(mu + md + half) / mu:.3f}x")
    lines.append(text)
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("summaries", nargs="*", help="side_by_side.py summary.json files")
    ap.add_argument("--metric", default="hold", choices=sorted(METRICS))
    ap.add_argument("--row", action="append", default=[], help="model,seed,ours,ultralytics")
    a = ap.parse_args()
    pairs, labels = read_pairs(a.summaries, a.row, a.metric)
    if not pairs:
        sys.exit("pool_seeds: no runs given (summary.json files or --row)")
    if labels[0] == "yolo-trainer":
        labels = ["ours", "Ultralytics"]
    print("\n\n".join(report(m, s, a.metric, labels) for m, s in pairs.items()))


if __name__ == "__main__":
    main()
