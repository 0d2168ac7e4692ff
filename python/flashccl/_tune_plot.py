"""`python -m flashccl plot TUNE.json`: the speedup plot of a `flashccl tune -J` record.

One line per collective (and rank count): flashccl's best algorithm's speedup over NCCL's default
against size, the 1.0 line drawn; a filled marker where the selection row names a flashccl
algorithm, a hollow one where it says nccl. (The perf-record plots live in _plot.py; __main__
sends a record here when its "tool" is "flashccl tune".) matplotlib is imported only when drawing.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import List, Optional

TOOL = "flashccl tune"


class TunePlotError(Exception):
    """A record that cannot be plotted, or no matplotlib; the message says which."""


def is_tune_record(path: str) -> bool:
    """True when path holds a flashccl tune record (anything unreadable is left to _plot)."""
    try:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
    except (OSError, ValueError):
        return False
    return isinstance(record, dict) and record.get("tool") == TOOL


def load_selection(path: str) -> List[dict]:
    try:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
    except OSError as error:
        raise TunePlotError(f"cannot read {path}: {error.strerror}") from None
    except ValueError as error:
        raise TunePlotError(f"{path} is not JSON: {error}") from None
    if not isinstance(record, dict) or record.get("tool") != TOOL:
        raise TunePlotError(f"{path} is not a flashccl tune record (flashccl tune -J FILE writes one)")
    selection = record.get("selection")
    if not isinstance(selection, list) or not any(isinstance(c, dict) and c.get("sizes") for c in selection):
        raise TunePlotError(f"{path} has no selection sizes to plot (a tune with --flashccl-algos none measures none)")
    for collective in selection:
        for size in collective.get("sizes", []):
            if not isinstance(size, dict) or not all(k in size for k in ("bytes", "speedup", "row")):
                raise TunePlotError(f"{path}: a selection size lacks bytes, speedup or row")
    return selection


def default_output(record_path: str) -> str:
    base = record_path[:-5] if record_path.endswith(".json") else record_path
    return base + "-speedup.png"


def plot(record_path: str, output: Optional[str] = None) -> str:
    """Draws the record's speedups into output (default: RECORD-speedup.png); returns its path."""
    selection = load_selection(record_path)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise TunePlotError("python -m flashccl plot needs matplotlib, which is not installed here: "
                            "pip install matplotlib") from None
    figure, axes = plt.subplots(figsize=(10, 6))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for index, collective in enumerate(selection):
        sizes = [s for s in collective.get("sizes", []) if s["speedup"] > 0]
        if not sizes:
            continue
        colour = colours[index % len(colours)]
        label = f"{collective.get('collective', '?')}, {collective.get('ranks', '?')} ranks"
        axes.plot([s["bytes"] for s in sizes], [s["speedup"] for s in sizes], "-", color=colour, label=label)
        armed = [s for s in sizes if s["row"] != "nccl"]
        axes.plot([s["bytes"] for s in armed], [s["speedup"] for s in armed], "o", color=colour)
        kept = [s for s in sizes if s["row"] == "nccl"]
        axes.plot([s["bytes"] for s in kept], [s["speedup"] for s in kept], "o", color=colour, fillstyle="none")
    axes.axhline(1.0, color="black", linewidth=1)
    axes.set_xscale("log", base=2)
    axes.set_xlabel("size (bytes)")
    axes.set_ylabel("speedup of flashccl's best over NCCL")
    axes.set_title("flashccl tune: filled = the row names flashccl, hollow = nccl")
    axes.legend()
    out = output or default_output(record_path)
    figure.savefig(out, dpi=100, bbox_inches="tight")
    plt.close(figure)
    return out


def main(args: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="flashccl plot", description="Plot a flashccl tune -J record's speedups.")
    parser.add_argument("record", metavar="TUNE.json")
    parser.add_argument("-o", "--output", metavar="OUT.png")
    options = parser.parse_args(args)
    try:
        out = plot(options.record, options.output)
    except TunePlotError as error:
        print(f"flashccl plot: {error}", file=sys.stderr)
        return 1
    print(f"flashccl plot: wrote {out}")
    return 0
