"""A stand-in for polars on the GPU machine (dev/test only: the GPU proof's bundle).

The GPU machine has no polars, and its wheel (about 40 MB) does not fit the 64 MiB a device call
carries. Ultralytics imports polars in a few places; in a training run with plots=False the only
one reached is BaseTrainer.read_results_csv (read_csv(...).to_dict(as_series=False)), which puts
results.csv into the checkpoint. This module does exactly that with the csv module; anything
else raises ImportError-like errors that name this shim, so that a proof step reaching further
fails clearly instead of computing something else.
"""

import csv
import io


class DataFrame:
    """The columns of a CSV file, as read_csv gives them here."""

    def __init__(self, columns):
        self._columns = columns

    def to_dict(self, as_series=True):
        if as_series:
            raise NotImplementedError("the GPU proof's polars shim gives plain lists only")
        return {k: list(v) for k, v in self._columns.items()}


def _number(text):
    try:
        return float(text) if any(c in text for c in ".eE") else int(text)
    except ValueError:
        return text


def read_csv(source, infer_schema_length=None):  # noqa: ARG001 (polars' signature)
    text = source.decode() if isinstance(source, (bytes, bytearray)) else open(source).read()
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return DataFrame({})
    header = [h.strip() for h in rows[0]]
    columns = {h: [] for h in header}
    for row in rows[1:]:
        for h, v in zip(header, row):
            columns[h].append(_number(v.strip()))
    return DataFrame(columns)


def __getattr__(name):
    raise AttributeError(f"polars.{name}: not in the GPU proof's polars shim (tools/parity/gpu_polars_shim.py)")
