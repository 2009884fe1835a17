#!/usr/bin/env python3
"""Checks which translation units use the LibTorch precompiled header against what they include.

Loading the PCH (a 700 MB image of torch/torch.h) costs about 3.7 s per translation unit on this
project's 2-core machines, so a file that includes no LibTorch header should be listed under
WITHOUT_TORCH in its target's yolo_torch_target() call (cmake/YoloHelpers.cmake), and a file
that does include one should get the PCH. This script preprocesses every translation unit of a
build's compile_commands.json without the PCH (gcc -M) and reports both kinds of mismatch.

    tools/pch_audit.py [BUILD_DIR] [--match SUBSTRING]

Run it on a build configured with -DYOLO_UNITY_BUILD=OFF: with unity batches, the sources that
are not listed come as Unity/unity_N_cxx.cxx units, and a file listed wrongly hides in its batch.
Exit status 1 when a mismatch is found. Takes about two minutes for the product's sources on two
cores (each file is preprocessed once).
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys

PCH_FLAG = re.compile(r"-include \S*cmake_pch\.hxx")


def includes_libtorch(entry):
    command = PCH_FLAG.sub("", entry["command"])
    args = shlex.split(command)
    if "-o" in args:
        i = args.index("-o")
        del args[i:i + 2]
    args = [("-M" if a == "-c" else a) for a in args]
    r = subprocess.run(args, cwd=entry["directory"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{entry['file']}: preprocessing failed: {r.stderr[:500]}")
    return "torch/include" in r.stdout or "/libtorch/" in r.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build_dir", nargs="?", default="build")
    parser.add_argument("--match", default="", help="only files whose path contains this")
    args = parser.parse_args()
    with open(os.path.join(args.build_dir, "compile_commands.json")) as f:
        entries = [e for e in json.load(f) if args.match in e["file"]]
    # The PCH's own unit and the generated anchors say nothing.
    entries = [e for e in entries if "cmake_pch.hxx.cxx" not in e["file"]]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        torch_used = list(pool.map(includes_libtorch, entries))
    mismatches = 0
    for entry, uses_torch in sorted(zip(entries, torch_used), key=lambda p: p[0]["file"]):
        has_pch = bool(PCH_FLAG.search(entry["command"]))
        if has_pch and not uses_torch:
            print(f"PCH without need  {entry['file']}: add it to WITHOUT_TORCH")
            mismatches += 1
        elif uses_torch and not has_pch:
            print(f"LibTorch, no PCH  {entry['file']}: give its target the PCH "
                  "(yolo_torch_target) or take it off WITHOUT_TORCH")
            mismatches += 1
    print(f"{len(entries)} translation units, {sum(torch_used)} include LibTorch, "
          f"{mismatches} mismatches")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
