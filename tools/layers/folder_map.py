#!/usr/bin/env python3
"""Checks that docs/architecture.md's folder map matches the tree.

Two parts of the page are compared with the source tree:
  - the table of top-level folders (rows that start with | `name/` |) against the folders that
    hold tracked files (git ls-files);
  - the block after the marker `<!-- folder map -->` (one folder per line, its path first)
    against the folders of the include graph (tools/layers/folder_graph.py: every folder of a
    product library that holds a source or a header).

    tools/layers/folder_map.py [--root DIR]

Exit status 0 when both match; 1 naming what is missing on either side; 2 without the page or
outside a git checkout.
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import folder_graph  # noqa: E402

MARKER = "<!-- folder map -->"


def top_level_folders(root: Path) -> set:
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files"], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"folder_map: cannot list the tracked files of {root} with git ({e}); "
                         "run it in a git checkout", file=sys.stderr)
        sys.exit(2)
    return {line.split("/")[0] for line in out.splitlines()
            if "/" in line and not line.startswith(".")}


def table_folders(text: str) -> set:
    return set(re.findall(r"^\|\s*`([^`/]+)/`\s*\|", text, re.M))


def map_block_folders(text: str) -> set:
    if MARKER not in text:
        return None
    block = text.split(MARKER, 1)[1]
    m = re.search(r"```[a-z]*\n(.*?)```", block, re.S)
    if not m:
        return None
    return {line.split()[0].rstrip("/") for line in m.group(1).splitlines()
            if line.strip() and not line.startswith(" ")}


def compare(what: str, documented: set, actual: set) -> list:
    problems = []
    for f in sorted(actual - documented):
        problems.append(f"{what}: `{f}/` is in the tree but not on the page")
    for f in sorted(documented - actual):
        problems.append(f"{what}: `{f}/` is on the page but not in the tree")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=Path(__file__).resolve().parents[2], type=Path)
    root = ap.parse_args().root.resolve()
    page = root / "docs" / "architecture.md"
    if not page.is_file():
        print(f"folder_map: {page} does not exist; give --root the source tree", file=sys.stderr)
        return 2
    text = page.read_text()
    problems = compare("folder table", table_folders(text), top_level_folders(root))
    mapped = map_block_folders(text)
    if mapped is None:
        problems.append(f"no folder map: {page} needs a code block after '{MARKER}'")
    else:
        nodes = {folder_graph.node_of(f.relative_to(root))
                 for f in folder_graph.product_files(root)}
        problems += compare("folder map", mapped, nodes)
    if problems:
        print(f"folder_map: {page.relative_to(root)} does not match the tree:")
        for p in problems:
            print("  " + p)
        return 1
    print(f"folder_map: {page.relative_to(root)} matches the tree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
