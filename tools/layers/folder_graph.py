#!/usr/bin/env python3
"""The include graph between the product's folders, and whether any arrow goes back up.

A node is a folder of one library as a newcomer sees it: `trainer/data` holds both
trainer/src/data/*.cpp and trainer/include/yolo/trainer/data/*.h; `models` holds models/src and
models/include/yolo/models. An arrow A -> B means a file of A includes a header of B. The folders
must form layers: an arrow that closes a cycle goes back up, and the check fails naming the cycle
and one include line on each of its arrows.

    tools/layers/folder_graph.py [--root DIR] [--dot FILE]

Exit status 0 when the graph has no cycle, 1 otherwise (2 for bad usage).
"""
import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

# The product's folders (tests/, tools/ and docs/ are not layers of the product).
PRODUCT = ["core", "models", "runtime", "media", "synth", "tracking", "analytics", "serving",
           "predict", "trainer", "pipelines"]
SUFFIXES = {".h", ".hpp", ".cpp", ".in"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def node_of(rel: Path) -> str:
    """The folder node of a file path relative to the root."""
    parts = list(rel.parts[:-1])
    top = parts[0]
    rest = parts[1:]
    if top == "pipelines" and rest:  # pipelines/gst, pipelines/monitor: one library each
        top, rest = f"pipelines/{rest[0]}", rest[1:]
    if rest[:1] == ["src"]:
        rest = rest[1:]
    elif rest[:1] == ["include"]:
        rest = rest[3:]  # include/yolo/<library>/...
    return "/".join([top] + rest)


def product_files(root: Path):
    for top in PRODUCT:
        for f in sorted((root / top).rglob("*")):
            if f.is_file() and f.suffix in SUFFIXES:
                yield f


def build_graph(root: Path):
    files = list(product_files(root))
    by_suffix = defaultdict(list)  # "yolo/trainer/data/dataset.h" and shorter tails -> files
    for f in files:
        parts = f.relative_to(root).parts
        for k in range(1, len(parts) + 1):
            by_suffix["/".join(parts[-k:])].append(f)
    edges = defaultdict(dict)  # node -> {node: "file: include line"}
    for f in files:
        rel = f.relative_to(root)
        src = node_of(rel)
        for inc in INCLUDE.findall(f.read_text(errors="replace")):
            local = f.parent / inc
            if local.is_file():
                target = local
            else:
                found = by_suffix.get(inc, [])
                if len(found) != 1:
                    continue  # generated (version.h) or a header outside the product
                target = found[0]
            dst = node_of(target.resolve().relative_to(root.resolve()))
            if dst != src:
                edges[src].setdefault(dst, f'{rel}: #include "{inc}"')
    return edges


def find_cycle(edges):
    """One cycle as a list of nodes (first == last), or None."""
    colour = {}
    stack = []

    def visit(n):
        colour[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, {})):
            if colour.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in colour:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        colour[n] = 2
        return None

    for n in sorted(set(edges) | {m for d in edges.values() for m in d}):
        if n not in colour:
            c = visit(n)
            if c:
                return c
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=Path(__file__).resolve().parents[2], type=Path)
    ap.add_argument("--dot", type=Path, help="also write the graph as Graphviz dot")
    args = ap.parse_args()
    root = args.root.resolve()
    if not (root / "CMakeLists.txt").is_file():
        print(f"folder_graph: {root} is not the source tree (no CMakeLists.txt)", file=sys.stderr)
        return 2
    edges = build_graph(root)
    if args.dot:
        lines = ["digraph folders {", "  rankdir=BT;"]
        for a in sorted(edges):
            for b in sorted(edges[a]):
                lines.append(f'  "{a}" -> "{b}";')
        args.dot.write_text("\n".join(lines + ["}"]) + "\n")
    cycle = find_cycle(edges)
    nodes = set(edges) | {m for d in edges.values() for m in d}
    if cycle:
        print("folder_graph: an include arrow goes back up: " + " -> ".join(cycle))
        for a, b in zip(cycle, cycle[1:]):
            print(f"  {a} -> {b}: {edges[a][b]}")
        print("Move the header to the lower folder, or the code that needs it to the higher one "
              "(docs/architecture.md).")
        return 1
    print(f"folder_graph: {len(nodes)} folders, {sum(len(d) for d in edges.values())} arrows, "
          "no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
