#!/usr/bin/env python3
"""flashccl_host_overhead's Google Benchmark JSON -> the markdown report kept in bench/results/.

usage: to_markdown.py RESULT.json [--machine NAME] [--command CMD] [-o REPORT.md]

Every number is the median over repetitions (Google Benchmark's "median" aggregate; the median of
the runs when there is no aggregate). Exits 1 when a size lacks its bare-launch or intercepted
time, after writing the report, which says why.
"""
import argparse
import json
import re
import statistics
import sys

GOAL_US = 0.3  # docs/design.md, "Hot path": host time over the bare launch of the same kernel
UNIT_TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
RUN_NAME = re.compile(r"^(BM_\w+)(?:/(\d+))?")

BARE = "BM_BareLaunch"
RUNTIME_BARE = "BM_BareRuntimeLaunch"
INTERCEPTED = "BM_InterceptedAllReduce"
SIDE_BY_SIDE = "BM_SideBySide"
COUNTERS = ("bare_us", "intercepted_us", "overhead_us", "runtime_us", "vs_runtime_us")
SINGLE_CALLS = [("BM_CudaGetDevice", "`cudaGetDevice`"),
                ("BM_CudaGetLastError", "`cudaGetLastError`"),
                ("BM_CuCtxGetCurrent", "`cuCtxGetCurrent` (driver)")]
GROUPED = [("flashccl us", "BM_InterceptedAllReduceGrouped"),
           ("pass-through us", "BM_PassThroughAllReduceGrouped"),
           ("real NCCL us", "BM_RealNcclAllReduceGrouped")]


class Measured:
    """One benchmark at one size: its runs, the median aggregate, label and error."""

    def __init__(self):
        self.runs = []
        self.median = None
        self.label = ""
        self.error = ""
        self.counters = {}  # the median repetition's user counters (BM_SideBySide)

    def time_us(self):
        if self.median is not None:
            return self.median
        return statistics.median(self.runs) if self.runs else None


def load(path):
    with open(path) as f:
        data = json.load(f)
    measured = {}
    for run in data.get("benchmarks", []):
        match = RUN_NAME.match(run.get("run_name", run.get("name", "")))
        if not match:
            continue
        # Single-call benchmarks have no size: 0.
        entry = measured.setdefault((match.group(1), int(match.group(2) or 0)), Measured())
        if run.get("error_occurred"):
            entry.error = run.get("error_message", "error")
            continue
        us = run["real_time"] * UNIT_TO_US[run.get("time_unit", "ns")]
        if run.get("run_type") == "aggregate":
            if run.get("aggregate_name") == "median":
                entry.median = us
                entry.counters = {key: run[key] for key in COUNTERS if key in run}
        else:
            entry.runs.append(us)
            entry.label = run.get("label", entry.label)
    return data.get("context", {}), measured


def size_text(n):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def us_text(value):
    return "-" if value is None else f"{value:.3f}"


def header(context, measured, machine, command):
    repetitions = max((len(m.runs) for m in measured.values()), default=0)
    batch = context.get("calls_per_batch", "?")
    timing = (f"host wall time per call: std::chrono around batches of {batch} enqueues, GPU "
              f"waits excluded (Google Benchmark manual time); "
              + (f"median of {repetitions} repetitions" if repetitions > 1 else
                 "one run" if repetitions == 1 else "nothing ran"))
    rows = [
        ("date", context.get("date", "?")),
        ("machine", machine or context.get("host_name", "?")),
        ("GPUs", context.get("gpus", "?")),
        ("ranks", context.get("ranks", "2 ranks, one GPU each, NCCL communicators")),
        ("CPU", f"{context.get('num_cpus', '?')} cores at {context.get('mhz_per_cpu', '?')} MHz, "
                f"frequency scaling {'on' if context.get('cpu_scaling_enabled') else 'off'}"),
        ("NCCL version", f"{context.get('nccl_version', '?')} ({context.get('nccl_library', '?')})"),
        ("flashccl version", context.get("flashccl_version", "?")),
    ]
    if "selection_table" in context:
        rows.append(("selection table", context["selection_table"]))
    rows += [
        ("Google Benchmark", f"{context.get('library_version', '?')} "
                             f"({context.get('library_build_type', '?')})"),
        ("timing", timing),
        ("command", f"`{command}`" if command else "-"),
    ]
    lines = ["# flashccl host overhead: intercepted ncclAllReduce vs bare kernel launch", "",
             "| | |", "|---|---|"]
    lines += [f"| {key} | {value} |" for key, value in rows]
    return lines


def overhead_table(measured, sizes):
    """The goal's table; returns its lines and whether every size has its overhead."""
    lines = [
        "## Rank 0's calls: intercepted vs bare launch of the same kernel", "",
        "Rank 0 issues float-sum AllReduces one after another with its GPU current. *bare launch*: "
        "`cudaLaunchKernel` of the kernel(s), grid, block and argument bytes that flashccl's call "
        "enqueues (taken from a CUDA graph capture of that call), launched the way flashccl launches "
        "(the driver's `cuLaunchKernel`, src/algo/driver_launch.h). *intercepted*: `ncclAllReduce` "
        "through flashccl. *side by side* (BM_SideBySide): batches of 32 bare launches and 32 "
        "intercepted calls alternate, so both see the same drift of the host's launch cost; "
        "*overhead* = intercepted - bare there (median over repetitions), flashccl's own host work "
        "(dispatch, selection, ordering, argument building); the goal is judged on it. "
        "*separately*: the two benchmarks run on their own (BM_BareLaunch, "
        "BM_InterceptedAllReduce), shuffled repetitions; their difference carries the drift. "
        "*speedup*: bare / intercepted, side by side. *runtime launch*: the same kernel through "
        "`cudaLaunchKernel`, as an application launches its own kernels (side by side too; "
        "BM_BareRuntimeLaunch runs it on its own): what a call costs against that.", "",
        "| size | bare launch us | intercepted us | overhead us | speedup | separately: bare / "
        "intercepted us | runtime launch us | intercepted - runtime us | algorithm |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    complete = True
    worst = None
    for size in sizes:
        paired = measured.get((SIDE_BY_SIDE, size), Measured())
        bare = measured.get((BARE, size), Measured())
        ours = measured.get((INTERCEPTED, size), Measured())
        separately = f"{us_text(bare.time_us())} / {us_text(ours.time_us())}"
        versus = us_text(paired.counters.get("vs_runtime_us"))
        runtime = us_text(paired.counters.get("runtime_us",
                                              measured.get((RUNTIME_BARE, size), Measured()).time_us()))
        label = paired.label or ours.label or bare.label
        counters = paired.counters
        if not all(key in counters for key in COUNTERS[:3]):
            complete = False
            why = "; ".join(dict.fromkeys(e for e in (paired.error, bare.error, ours.error) if e))
            lines.append(f"| {size_text(size)} | - | - | - | - | {separately} | {runtime} | {versus} | "
                         f"skipped: {why or 'not measured'} |")
            continue
        overhead = counters["overhead_us"]
        if worst is None or overhead > worst[0]:
            worst = (overhead, size)
        lines.append(f"| {size_text(size)} | {counters['bare_us']:.3f} | "
                     f"{counters['intercepted_us']:.3f} | {overhead:.3f} | "
                     f"{counters['bare_us'] / counters['intercepted_us']:.2f} | {separately} | "
                     f"{runtime} | {versus} | {label} |")
    lines.append("")
    if worst is None:
        lines.append(f"Goal (overhead <= {GOAL_US} us): not measured.")
    else:
        verdict = "met" if complete and worst[0] <= GOAL_US else "NOT met"
        lines.append(f"Goal (overhead <= {GOAL_US} us at every size): **{verdict}**; largest "
                     f"overhead {worst[0]:.3f} us at {size_text(worst[1])}"
                     f"{'' if complete else ' (some sizes not measured)'}.")
    return lines, complete


def grouped_table(measured, sizes):
    lines = [
        "## Context: grouped pairs, per call", "",
        "One thread drives both GPUs the way NCCL requires: `ncclGroupStart`; rank 0's call; "
        "rank 1's call; `ncclGroupEnd` (with a `cudaSetDevice` before each call). Time per call = "
        "time per pair / 2. *flashccl*: through flashccl on communicators it runs. "
        "*pass-through*: through flashccl's exports on communicators made by the real NCCL, which "
        "flashccl forwards untouched. *real NCCL*: the real NCCL's own entry points on the same "
        "communicators.", "",
        "| size | " + " | ".join(column for column, _ in GROUPED) + " |",
        "|---:|" + "---:|" * len(GROUPED),
    ]
    errors = {measured.get((family, size), Measured()).error for size in sizes for _, family in GROUPED}
    if len(errors) == 1 and "" not in errors:
        # One reason for every cell (virtual ranks): say it once.
        return lines[:2] + [f"Not run: {errors.pop()}."]
    for size in sizes:
        cells = []
        for _, family in GROUPED:
            entry = measured.get((family, size), Measured())
            cells.append(us_text(entry.time_us()) if not entry.error else f"skipped: {entry.error}")
        lines.append(f"| {size_text(size)} | " + " | ".join(cells) + " |")
    return lines


def single_calls_table(measured):
    lines = [
        "## Context: single CUDA calls", "",
        "What one call costs on this host (Google Benchmark's own timing, median): the prices of "
        "the pieces an intercepted call can be made of.", "",
        "| call | us |", "|---|---:|",
    ]
    for name, what in SINGLE_CALLS:
        entry = measured.get((name, 0), Measured())
        lines.append(f"| {what} | " +
                     (us_text(entry.time_us()) if not entry.error else f"skipped: {entry.error}") + " |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", help="flashccl_host_overhead --benchmark_out file (JSON)")
    parser.add_argument("--machine", default="", help="how the report names the machine")
    parser.add_argument("--command", default="", help="the command line that produced the JSON")
    parser.add_argument("-o", "--output", help="write here instead of standard output")
    args = parser.parse_args()

    context, measured = load(args.json)
    sizes = sorted({size for _, size in measured if size > 0})
    lines = header(context, measured, args.machine, args.command) + [""]
    table, complete = overhead_table(measured, sizes)
    lines += table + [""] + grouped_table(measured, sizes)
    if any(size == 0 for _, size in measured):
        lines += [""] + single_calls_table(measured)
    text = "\n".join(lines) + "\n"
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0 if complete else 1


if __name__ == "__main__":
    sys.exit(main())
