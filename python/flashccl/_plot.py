"""python -m flashccl plot RESULTS.json [-o OUT.png]: the picture of a `flashccl perf -J` record.

Three panels against message size (log2 axis): time per operation and bus bandwidth of NCCL
(dashed) and flashccl (solid), and the speedup (NCCL time / flashccl time) with the range of the
per-pair ratios shaded and a line at 1. One colour per series: collective, and datatype, op and
placement when the record has more than one of them. matplotlib is imported only here, so the
rest of the package works without it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import OrderedDict
from typing import Dict, List, Optional

SCHEMA = 2


class PlotError(Exception):
    """A record that cannot be plotted, or no matplotlib; the message says which."""


def load_record(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
    except OSError as error:
        raise PlotError(f"cannot read {path}: {error.strerror}") from None
    except ValueError as error:
        raise PlotError(f"{path} is not JSON: {error}") from None
    if not isinstance(record, dict) or record.get("tool") != "flashccl perf" or record.get("schema") != SCHEMA:
        raise PlotError(f"{path} is not a flashccl perf record of schema {SCHEMA} (flashccl perf -J FILE writes one)")
    if not record.get("results"):
        raise PlotError(f"{path} has no results to plot")
    return record


def _series_key(result: dict, varying: Dict[str, bool]) -> str:
    parts = [result["collective"]]
    if varying["dtype"]:
        parts.append(result["dtype"])
    if varying["op"] and result["op"] != "none":
        parts.append(result["op"])
    if varying["in_place"]:
        parts.append("in-place" if result["in_place"] else "out-of-place")
    return " ".join(parts)


def series(record: dict) -> "OrderedDict[str, List[dict]]":
    """Results grouped into plotted lines, sizes ascending (the last -N cycle wins a size)."""
    results = record["results"]
    # AllGather's op is "none": that alone does not make the op vary.
    varying = {field: len({str(r[field]) for r in results if r[field] != "none"}) > 1
               for field in ("dtype", "op", "in_place")}
    grouped: "OrderedDict[str, Dict[int, dict]]" = OrderedDict()
    for result in results:
        grouped.setdefault(_series_key(result, varying), {})[result["size_bytes"]] = result
    return OrderedDict((key, [by_size[s] for s in sorted(by_size)]) for key, by_size in grouped.items())


def _size_label(size: float) -> str:
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):g}{unit}"
    return f"{size:g}"


def default_output(record_path: str) -> str:
    base = record_path[:-5] if record_path.endswith(".json") else record_path
    return base + ".png"


def plot(record_path: str, output: Optional[str] = None) -> str:
    """Draws the record at record_path into output (default: the record's name with .png);
    returns the output path."""
    record = load_record(record_path)
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only; no display needed
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
        from matplotlib.ticker import FuncFormatter
    except ImportError:
        raise PlotError("python -m flashccl plot needs matplotlib, which is not installed here: "
                        "pip install matplotlib") from None

    lines = series(record)
    figure, (latency, busbw, speedup) = plt.subplots(3, 1, figsize=(10, 12), sharex=True)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    # One legend entry per series (its colour) plus one per library (its line style).
    handles = []
    highest = 1.0
    for index, (name, results) in enumerate(lines.items()):
        colour = colours[index % len(colours)]
        sizes = [r["size_bytes"] for r in results]
        for library, style in (("flashccl", "-"), ("nccl", "--")):
            latency.plot(sizes, [r[library]["time_us"] for r in results], style, color=colour, marker=".")
            busbw.plot(sizes, [r[library]["busbw_gbps"] for r in results], style, color=colour, marker=".")
        speedup.plot(sizes, [r["speedup"] for r in results], "-", color=colour, marker=".")
        speedup.fill_between(sizes, [r["speedup_min"] for r in results], [r["speedup_max"] for r in results],
                             color=colour, alpha=0.15, linewidth=0)
        highest = max([highest] + [r["speedup"] for r in results])
        handles.append(Line2D([], [], color=colour, marker=".", label=name))
    handles += [Line2D([], [], color="grey", linestyle="-", label="flashccl"),
                Line2D([], [], color="grey", linestyle="--", label="NCCL")]
    speedup.axhline(1.0, color="black", linewidth=0.8, linestyle=":")
    # The medians decide the scale; a noisy pair's range may run off the top.
    speedup.set_ylim(0, highest * 1.3)

    latency.set_ylabel("time per operation (us)")
    latency.set_yscale("log")
    busbw.set_ylabel("bus bandwidth (GB/s)")
    speedup.set_ylabel("speedup (NCCL time / flashccl time)")
    speedup.set_xlabel("message size (bytes, whole buffer as nccl-tests counts it)")
    speedup.set_xscale("log", base=2)
    speedup.xaxis.set_major_formatter(FuncFormatter(lambda value, _: _size_label(value)))
    for axes in (latency, busbw, speedup):
        axes.grid(True, which="major", alpha=0.3)
    latency.legend(handles=handles, fontsize="small", loc="best")
    speedup.legend(handles=handles[:-2], fontsize="small", loc="best")
    latency.set_title("latency: flashccl solid, NCCL dashed")
    busbw.set_title("bus bandwidth")
    speedup.set_title("speedup, shaded: range over the pairs")
    figure.suptitle(f"flashccl perf on {record['machine']}: {record['ranks']} ranks, NCCL {record['nccl_version']}, "
                    f"flashccl {record['flashccl_version']} ({record['flashccl_commit']}), {record['date']}",
                    fontsize="medium")
    figure.tight_layout()
    out = output or default_output(record_path)
    figure.savefig(out, dpi=100)
    plt.close(figure)
    return out


class _OneLineParser(argparse.ArgumentParser):
    """Usage errors as every flashccl command prints them: one line, exit status 2 (docs/cli.md)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"{self.prog}: {message} ({self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


def main(args: List[str]) -> int:
    parser = _OneLineParser(prog="flashccl plot",
                                     description="Plot a flashccl perf -J record: latency, bus bandwidth "
                                                 "and speedup against size.")
    parser.add_argument("record", metavar="RESULTS.json", help="the record flashccl perf -J wrote")
    parser.add_argument("-o", "--output", metavar="OUT.png", help="where to write (default: RESULTS.png)")
    options = parser.parse_args(args)  # usage errors: one line naming the problem, exit 2
    try:
        out = plot(options.record, options.output)
    except PlotError as error:
        print(f"flashccl plot: {error}", file=sys.stderr)
        return 1
    print(f"flashccl plot: wrote {out}")
    return 0
