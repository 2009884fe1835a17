#!/usr/bin/env python3
"""The GPU proof's bundle: what the GPU machine lacks, built here, in one folder (dev/test only).

The GPU machine (tool library: device/KINDS.md) has Python, PyTorch 2.11.0 (CUDA 13.0), CMake
and some Python packages, no Debian development or runtime packages beyond its base image, and
no network; at most 64 MiB travel with a call. So the programs are built here against the same
torch 2.11.0 wheel (its C++ libraries are the same files there, found through the proof's
LD_LIBRARY_PATH) and travel with every shared library they load that is neither torch's, the C
library's nor the C++ runtime's, compressed:

    python3 tools/gpu_bundle.py BUILD_DIR OUT_DIR [--assets DIR] [--wheels DIR]

OUT_DIR gets payload.tar.xz (bin/, lib/, lib/gstreamer-1.0/, python/, data/) and MANIFEST.txt,
which lists every file with its size and says what was stubbed and why. tools/gpu-proof.sh
unpacks and runs it.

Stubs. Debian's OpenCV loads GDAL, DICOM, FFmpeg and OpenGL libraries that no step of the proof
calls (readers of other image formats, a video backend the product does not read through) and
that would take the bundle far past its limit (about 250 libraries, 95 MB compressed). Every library is linked with BIND_NOW, so each
symbol they import must exist: such a library is replaced by a stub of the same SONAME that
defines exactly the symbols imported from it, each function a trap (ud2). A stub that is ever
called stops the program with SIGILL at once, never a wrong result; the rehearsal runs every
step, so a stub that is reached fails here, not on the GPU machine (OpenEXR and protobuf are
carried for that reason: OpenCV calls them while it starts).
"""

import argparse
import functools
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

# Loaded from the GPU machine itself: the C library, the C++ runtime, the dynamic loader.
SYSTEM = re.compile(r"^(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux-x86-64|"
                    r"libstdc\+\+|libgcc_s)\.so")

# Replaced by trap stubs (module docstring): SONAME prefix -> why no step reaches it.
STUBS = {
    "libgdal.so": "OpenCV imgcodecs: GDAL raster reader (only with IMREAD_LOAD_GDAL)",
    "libgdcm": "OpenCV imgcodecs: DICOM reader",
    "libGLX.so": "OpenCV core: OpenGL interop",
    "libGL.so": "OpenCV core: OpenGL interop",
    "libavcodec.so": "OpenCV videoio: FFmpeg backend (videos are read and written through GStreamer)",
    "libavformat.so": "OpenCV videoio: FFmpeg backend",
    "libavutil.so": "OpenCV videoio: FFmpeg backend",
    "libswscale.so": "OpenCV videoio: FFmpeg backend",
    "libswresample.so": "OpenCV videoio: FFmpeg backend",
    "libdc1394.so": "OpenCV videoio: FireWire cameras",
    "libgphoto2": "OpenCV videoio: still cameras",
    "libraw1394.so": "OpenCV videoio: FireWire cameras",
}

# Stubbed functions that OpenCV calls while it starts, and that may do nothing: each returns void
# and only registers what the proof never uses (with no GDAL driver registered, OpenCV's GDAL
# reader never claims a file).
NOOPS = {"GDALAllRegister"}

# Programs of the proof (from BUILD_DIR/bin).
PROGRAMS = ["yolo-trainer", "bench_inference", "test_gpu_models", "test_gpu_runtime",
            "test_gpu_train"]
# GStreamer plugins of the element's step: ours, and the few elements its pipelines name.
GST_PLUGINS = ["libgstcoreelements.so", "libgstcoretracers.so", "libgstvideotestsrc.so",
               "libgstvideoconvertscale.so", "libgstapp.so"]
GST_PLUGIN_DIR = Path("/usr/lib/x86_64-linux-gnu/gstreamer-1.0")
GST_TOOLS = [Path("/usr/bin/gst-launch-1.0"), Path("/usr/bin/gst-inspect-1.0"),
             Path("/usr/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner")]
ASSETS = ["yolo11n.pt", "bus.jpg", "zidane.jpg"]


def needed(path):
    """The NEEDED entries of an ELF file."""
    out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, check=True)
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out.stdout)


def resolved(path):
    """name -> path of every library the loader finds for `path` (ldd), torch's included."""
    out = subprocess.run(["ldd", str(path)], capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) => (\S+)", line)
        if m and m.group(2) != "not":
            found[m.group(1)] = m.group(2)
    return found


def stub_reason(name):
    for prefix, why in STUBS.items():
        if name.startswith(prefix):
            return why
    return None


def is_torch(path):
    """A library of the torch wheel or its nvidia-* packages: the GPU machine has its own."""
    return "/site-packages/" in path


@functools.lru_cache(maxsize=None)
def dynamic_symbols(path, defined):
    """Dynamic symbols of an ELF file: (name, version, kind, size) defined or imported."""
    args = ["nm", "-D", "--with-symbol-versions", "-S"]
    args.append("--defined-only" if defined else "--undefined-only")
    out = subprocess.run(args + [str(path)], capture_output=True, text=True, check=True).stdout
    symbols = []
    for line in out.splitlines():
        parts = line.split()
        if defined and len(parts) == 4:
            _, size, kind, name = parts
        elif defined and len(parts) == 3:
            size, (kind, name) = "0", parts[1:]
        elif not defined and len(parts) == 2:
            size, (kind, name) = "0", parts
        else:
            continue
        base, _, version = name.partition("@")
        symbols.append((base, version.lstrip("@"), kind, int(size, 16)))
    return symbols


def make_stub(real, importers, out_dir, workdir):
    """A trap stub of the library `real` defining what `importers` import from it."""
    wanted = {(s[0], s[1]) for f in importers for s in dynamic_symbols(f, defined=False)}
    provided = [s for s in dynamic_symbols(real, defined=True)
                if (s[0], s[1]) in wanted or (s[0], "") in wanted]
    soname = Path(real).name
    out = subprocess.run(["readelf", "-d", real], capture_output=True, text=True).stdout
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", out)
    if m:
        soname = m.group(1)
    asm, versions = [".text"], {}
    for name, version, kind, size in provided:
        versions.setdefault(version, []).append(name)
        if kind in "TtWiI":
            body = "  ret" if name in NOOPS else "  ud2"
            asm += [f".globl {name}", f".type {name},@function", f"{name}:", body]
        else:
            asm += [".data", f".globl {name}", f".type {name},@object", f".size {name},{max(size, 8)}",
                    f"{name}:", f"  .zero {max(size, 8)}", ".text"]
    src = workdir / f"{soname}.s"
    src.write_text("\n".join(asm) + "\n")
    script = workdir / f"{soname}.map"
    nodes = []
    for version, names in versions.items():
        if version:
            nodes.append(version + " { global: " + " ".join(f"{n};" for n in names) + " };")
    script.write_text("\n".join(nodes) + "\n" if nodes else "{ global: *; };\n")
    target = out_dir / soname
    subprocess.run(["gcc", "-shared", "-nostdlib", "-o", str(target), str(src),
                    f"-Wl,-soname,{soname}", f"-Wl,--version-script,{script}"], check=True)
    return target, len(provided)


def stage_programs(build, stage):
    """The proof's programs, our plugin, the GStreamer plugins and tools it names, into the stage;
    returns their staged paths (the roots of the library closure)."""
    programs = [build / "bin" / p for p in PROGRAMS]
    for src in programs:
        if not src.exists():
            sys.exit(f"gpu_bundle: {src} is missing: build it first (cmake --build {build})")
    plugins = [build / "gst-plugins" / "libgstyolo.so"] + [GST_PLUGIN_DIR / p for p in GST_PLUGINS]
    places = [(src, stage / "bin") for src in programs + GST_TOOLS]
    places += [(src, stage / "lib/gstreamer-1.0") for src in plugins]
    return [Path(shutil.copy2(src, folder / src.name)) for src, folder in places]


def collect_libraries(roots, lib_dir):
    """Every library ldd finds for the roots, minus the system's and torch's, copied into lib_dir;
    a library to stub is recorded with its importers and its own dependencies are not followed.
    Returns (copied: name -> path, stubbed: name -> path, importers: name -> staged objects)."""
    copied, stubbed, importers = {}, {}, {}
    todo = list(roots)
    while todo:
        obj = todo.pop()
        where = resolved(obj)
        for name in needed(obj):
            if SYSTEM.match(name):
                continue
            path = where.get(name)
            if path is None:
                sys.exit(f"gpu_bundle: {obj} needs {name}, which this machine lacks")
            if is_torch(path):
                continue
            if stub_reason(name):
                stubbed[name] = path
                importers.setdefault(name, set()).add(obj)
                continue
            if name not in copied:
                copied[name] = path
                shutil.copy2(path, lib_dir / name)
                os.chmod(lib_dir / name, 0o755)
                todo.append(lib_dir / name)
    return copied, stubbed, importers


def write_stubs(stubbed, importers, lib_dir):
    """A trap stub for each library to stub; one MANIFEST line each."""
    lines = []
    with tempfile.TemporaryDirectory() as work:
        for name, real in sorted(stubbed.items()):
            target, count = make_stub(real, importers[name], lib_dir, Path(work))
            if target.name != name:
                os.symlink(target.name, lib_dir / name)
            lines.append(f"  {name}: {count} symbols, {stub_reason(name)}")
    return lines


def stage_python_and_data(wheels, assets, stage):
    """The wheels given, the polars stand-in (tools/parity/gpu_polars_shim.py says why), the
    real photos and weights."""
    if wheels and wheels.is_dir():
        for w in sorted(wheels.glob("*.whl")):
            shutil.copy2(w, stage / "python" / w.name)
    shim = Path(__file__).resolve().parent / "parity" / "gpu_polars_shim.py"
    (stage / "python" / "shim" / "polars").mkdir(parents=True)
    shutil.copy2(shim, stage / "python" / "shim" / "polars" / "__init__.py")
    for f in ASSETS:
        if (assets / f).exists():
            shutil.copy2(assets / f, stage / "data" / f)


def write_payload(stage, out):
    """payload.tar.xz, written under a temporary name and renamed (never half a file)."""
    out.mkdir(parents=True, exist_ok=True)
    payload = out / "payload.tar.xz"
    tmp = payload.with_suffix(".tmp")
    with tarfile.open(tmp, "w:xz", preset=9) as tar:
        tar.add(stage, arcname="yolo-gpu")
    os.replace(tmp, payload)
    return payload


def manifest_lines(stage, payload, copied, stubbed, stub_lines):
    """MANIFEST.txt: the summary, then every file with its size."""
    files = sorted(p for p in stage.rglob("*") if p.is_file() or p.is_symlink())
    raw = sum(p.stat().st_size for p in files if p.is_file() and not p.is_symlink())
    lines = [f"payload.tar.xz: {payload.stat().st_size / 2**20:.1f} MiB "
             f"({raw / 2**20:.1f} MiB unpacked, {len(files)} files)",
             f"programs: {', '.join(PROGRAMS)}, gst-launch-1.0, gst-inspect-1.0",
             f"GStreamer plugins: libgstyolo.so, {', '.join(GST_PLUGINS)}",
             f"libraries: {len(copied)} carried, {len(stubbed)} stubbed:"] + stub_lines
    lines.append("files:")
    for p in files:
        size = 0 if p.is_symlink() else p.stat().st_size
        lines.append(f"  {size / 2**20:8.2f} MiB  {p.relative_to(stage)}")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--assets", type=Path, default=Path("/opt/yolo-edge/test-assets"))
    ap.add_argument("--wheels", type=Path, help="folder of Python wheels to carry")
    a = ap.parse_args()

    stage = Path(tempfile.mkdtemp(prefix="gpu-bundle-"))
    try:
        for d in ("bin", "lib/gstreamer-1.0", "python", "data"):
            (stage / d).mkdir(parents=True, exist_ok=True)
        roots = stage_programs(a.build, stage)
        copied, stubbed, importers = collect_libraries(roots, stage / "lib")
        stub_lines = write_stubs(stubbed, importers, stage / "lib")
        stage_python_and_data(a.wheels, a.assets, stage)
        payload = write_payload(stage, a.out)
        lines = manifest_lines(stage, payload, copied, stubbed, stub_lines)
        (a.out / "MANIFEST.txt").write_text("\n".join(lines) + "\n")
        print("\n".join(lines[:5 + len(stub_lines)]))
    finally:
        shutil.rmtree(stage, ignore_errors=True)


if __name__ == "__main__":
    main()
