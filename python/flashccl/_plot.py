"""python -m flashccl plot RESULTS.json [-o OUT.png] [--placements split|merged|out|in]: the picture of
a `flashccl perf -J` record.

Three rows of panels against message size (log2 axis): time per operation and bus bandwidth of
NCCL (dashed) and flashccl (solid), both on log axes (small sizes do not lie flat at zero), and the
speedup (NCCL time / flashccl time) with the range of the per-pair ratios shaded and a line at 1.
A record with both placements gets one column of panels each (out-of-place, in-place), or, with
--placements merged, one line per series whose times are the mean of the two placements. One colour
per series: collective, and datatype and op when the record has more than one of them.
matplotlib is imported only here, so the rest of the package works without it.

Records of schema 1 (bench/results/2026-11-30-*.json: no "schema" field, collectives spelt
"all_reduce", no commit) are read as well as schema 2 (docs/perf.md, "The JSON record").
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import OrderedDict
from typing import Dict, List, Optional

SCHEMA = 2
READABLE_SCHEMAS = (1, 2)
PLACEMENTS = ("split", "merged", "out", "in")


class PlotError(Exception):
    """A record that cannot be plotted, or no matplotlib; the message says which."""


def record_schema(record: dict) -> int:
    """The schema a perf record is written in: its "schema" field; records from before that field
    (the first perf records) are schema 1."""
    return record.get("schema", 1)


def _upgrade(record: dict) -> dict:
    """A schema-1 record in schema 2's names, as far as the plot reads them."""
    if record_schema(record) == 1:
        record = dict(record)
        record.setdefault("flashccl_commit", "commit not recorded")
        results = []
        for result in record.get("results") or []:
            result = dict(result)
            result["collective"] = str(result.get("collective", "")).replace("_", "")
            result.setdefault("cycle", 0)
            results.append(result)
        record["results"] = results
    return record


def load_record(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
    except OSError as error:
        raise PlotError(f"cannot read {path}: {error.strerror}") from None
    except ValueError as error:
        raise PlotError(f"{path} is not JSON: {error}") from None
    if not isinstance(record, dict) or record.get("tool") != "flashccl perf":
        raise PlotError(f"{path} is not a flashccl perf record (flashccl perf -J FILE writes one)")
    schema = record_schema(record)
    if schema not in READABLE_SCHEMAS:
        raise PlotError(f"{path} is a flashccl perf record of schema {schema}; this flashccl reads schemas "
                        f"{' and '.join(map(str, READABLE_SCHEMAS))}")
    if not record.get("results"):
        raise PlotError(f"{path} has no results to plot")
    return _upgrade(record)


def _series_key(result: dict, varying: Dict[str, bool]) -> str:
    parts = [result["collective"]]
    if varying["dtype"]:
        parts.append(result["dtype"])
    if varying["op"] and result["op"] != "none":
        parts.append(result["op"])
    if varying.get("in_place"):
        parts.append("in-place" if result["in_place"] else "out-of-place")
    return " ".join(parts)


def series(record: dict, split_placements: bool = False) -> "OrderedDict[str, List[dict]]":
    """Results grouped into plotted lines, sizes ascending (the last -N cycle wins a size). With
    split_placements the placement is left out of the names (each placement has panels of its own)."""
    results = record["results"]
    # AllGather's op is "none": that alone does not make the op vary.
    varying = {field: len({str(r[field]) for r in results if r[field] != "none"}) > 1
               for field in ("dtype", "op", "in_place")}
    if split_placements:
        varying["in_place"] = False
    grouped: "OrderedDict[str, Dict[int, dict]]" = OrderedDict()
    for result in results:
        grouped.setdefault(_series_key(result, varying), {})[result["size_bytes"]] = result
    return OrderedDict((key, [by_size[s] for s in sorted(by_size)]) for key, by_size in grouped.items())


def _merged(results: List[dict]) -> dict:
    """One point from the same size's out-of-place and in-place results: the mean of their times
    and bandwidths, the speedup of those means, the ratio range over both."""
    point = dict(results[0])
    for library in ("flashccl", "nccl"):
        point[library] = {key: sum(r[library][key] for r in results) / len(results)
                          for key in ("time_us", "busbw_gbps")}
    point["speedup"] = point["nccl"]["time_us"] / point["flashccl"]["time_us"] if point["flashccl"]["time_us"] else 0
    point["speedup_min"] = min(r["speedup_min"] for r in results)
    point["speedup_max"] = max(r["speedup_max"] for r in results)
    return point


def panels(record: dict, placements: str = "split") -> "OrderedDict[str, OrderedDict[str, List[dict]]]":
    """Column title -> the lines of that column of panels. `placements`: split (a column per
    placement the record has), merged (one column, both placements' mean), out or in (one)."""
    if placements not in PLACEMENTS:
        raise PlotError(f"--placements must be one of {', '.join(PLACEMENTS)}, not {placements!r}")
    results = record["results"]
    present = [p for p in (False, True) if any(bool(r["in_place"]) == p for r in results)]
    title = {False: "out-of-place", True: "in-place"}
    if placements in ("out", "in"):
        wanted = placements == "in"
        if wanted not in present:
            raise PlotError(f"the record has no {title[wanted]} results")
        chosen = dict(record, results=[r for r in results if bool(r["in_place"]) == wanted])
        return OrderedDict([(title[wanted], series(chosen, split_placements=True))])
    if placements == "merged" or len(present) == 1:
        if len(present) == 1:
            return OrderedDict([(title[present[0]], series(record, split_placements=True))])
        by_key: "OrderedDict[str, Dict[int, List[dict]]]" = OrderedDict()
        merged = OrderedDict()
        for placement in present:
            chosen = dict(record, results=[r for r in results if bool(r["in_place"]) == placement])
            for name, line in series(chosen, split_placements=True).items():
                for point in line:
                    by_key.setdefault(name, {}).setdefault(point["size_bytes"], []).append(point)
        for name, by_size in by_key.items():
            merged[name] = [_merged(by_size[size]) for size in sorted(by_size)]
        return OrderedDict([("both placements, mean", merged)])
    columns = OrderedDict()
    for placement in present:
        chosen = dict(record, results=[r for r in results if bool(r["in_place"]) == placement])
        columns[title[placement]] = series(chosen, split_placements=True)
    return columns


def _size_label(size: float) -> str:
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):g}{unit}"
    return f"{size:g}"


def default_output(record_path: str) -> str:
    base = record_path[:-5] if record_path.endswith(".json") else record_path
    return base + ".png"


def plot(record_path: str, output: Optional[str] = None, placements: str = "split") -> str:
    """Draws the record at record_path into output (default: the record's name with .png);
    returns the output path."""
    record = load_record(record_path)
    columns = panels(record, placements)
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only; no display needed
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
        from matplotlib.ticker import FuncFormatter
    except ImportError:
        raise PlotError("python -m flashccl plot needs matplotlib, which is not installed here: "
                        "pip install matplotlib") from None

    width = len(columns)
    figure, grid = plt.subplots(3, width, figsize=(10 if width == 1 else 8 * width, 12), sharex=True,
                                squeeze=False)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    # One colour per series name, the same in every column.
    names: List[str] = []
    for lines in columns.values():
        names += [name for name in lines if name not in names]
    colour_of = {name: colours[i % len(colours)] for i, name in enumerate(names)}
    highest = 1.0
    for column, (title, lines) in enumerate(columns.items()):
        latency, busbw, speedup = grid[0][column], grid[1][column], grid[2][column]
        for name, results in lines.items():
            colour = colour_of[name]
            sizes = [r["size_bytes"] for r in results]
            for library, style in (("flashccl", "-"), ("nccl", "--")):
                latency.plot(sizes, [r[library]["time_us"] for r in results], style, color=colour, marker=".")
                # A log axis has no 0: a bandwidth that rounds to 0 is left out, not drawn at the bottom.
                bandwidth = [(s, r[library]["busbw_gbps"]) for s, r in zip(sizes, results) if r[library]["busbw_gbps"] > 0]
                busbw.plot([s for s, _ in bandwidth], [b for _, b in bandwidth], style, color=colour, marker=".")
            speedup.plot(sizes, [r["speedup"] for r in results], "-", color=colour, marker=".")
            speedup.fill_between(sizes, [r["speedup_min"] for r in results], [r["speedup_max"] for r in results],
                                 color=colour, alpha=0.15, linewidth=0)
            highest = max([highest] + [r["speedup"] for r in results])
        speedup.axhline(1.0, color="black", linewidth=0.8, linestyle=":")
        # A log axis needs a positive value to place its ticks (a record whose bandwidths all round to
        # 0, e.g. a quick run on one shared GPU, keeps a linear axis instead of failing).
        for axis in (latency, busbw):
            if any(y > 0 for line in axis.get_lines() for y in line.get_ydata()):
                axis.set_yscale("log")
        speedup.set_xscale("log", base=2)
        speedup.xaxis.set_major_formatter(FuncFormatter(lambda value, _: _size_label(value)))
        speedup.set_xlabel("message size (bytes, whole buffer as nccl-tests counts it)")
        for axes in (latency, busbw, speedup):
            axes.grid(True, which="major", alpha=0.3)
        latency.set_title(f"{title}: latency, flashccl solid, NCCL dashed")
        busbw.set_title(f"{title}: bus bandwidth")
        speedup.set_title(f"{title}: speedup, shaded: range over the pairs")
    for column in range(width):
        # The medians decide the scale; a noisy pair's range may run off the top.
        grid[2][column].set_ylim(0, highest * 1.3)
    grid[0][0].set_ylabel("time per operation (us)")
    grid[1][0].set_ylabel("bus bandwidth (GB/s)")
    grid[2][0].set_ylabel("speedup (NCCL time / flashccl time)")
    handles = [Line2D([], [], color=colour_of[name], marker=".", label=name) for name in names]
    grid[0][0].legend(handles=handles + [Line2D([], [], color="grey", linestyle="-", label="flashccl"),
                                         Line2D([], [], color="grey", linestyle="--", label="NCCL")],
                      fontsize="small", loc="best")
    grid[2][0].legend(handles=handles, fontsize="small", loc="best")
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
                                     description="Plot a flashccl perf -J record (schema 1 or 2): latency, "
                                                 "bus bandwidth and speedup against size.")
    parser.add_argument("record", metavar="RESULTS.json", help="the record flashccl perf -J wrote")
    parser.add_argument("-o", "--output", metavar="OUT.png", help="where to write (default: RESULTS.png)")
    parser.add_argument("--placements", choices=PLACEMENTS, default="split",
                        help="split: a column of panels per placement (default); merged: one line per series, "
                             "the mean of both; out or in: that placement only")
    options = parser.parse_args(args)  # usage errors: one line naming the problem, exit 2
    try:
        out = plot(options.record, options.output, options.placements)
    except PlotError as error:
        print(f"flashccl plot: {error}", file=sys.stderr)
        return 1
    print(f"flashccl plot: wrote {out}")
    return 0
