#!/usr/bin/env python3
"""The newcomer walk of issue 28, as a test: each command a newcomer tried from README.md and
docs/, run as the docs write it against the build on a CPU machine (no GPU needed: commands that
need one run with no GPU visible and must get past their command line), with what must happen.

    newcomer_walk.py SOURCE_DIR BUILD_DIR

Prints one PASS/FAIL line per step; exit status 1 when any step fails.
"""

from __future__ import annotations

import ctypes
import glob
import json
import os
import subprocess
import sys
import tempfile
from typing import Callable, Dict, List, Optional

USAGE_SIGNATURE = "--help)"  # the one-line usage error ends "(flashccl <command> --help)"


class Walk:
    def __init__(self, source: str, build: str, scratch: str):
        self.source, self.build, self.scratch = source, build, scratch
        self.tool = os.path.join(build, "tools", "flashccl")
        self.failures: List[str] = []

    def run(self, argv: List[str], env: Optional[Dict[str, str]] = None, cwd: Optional[str] = None,
            python: bool = False, no_gpu: bool = False) -> subprocess.CompletedProcess:
        full_env = dict(os.environ)
        full_env["PYTHONPATH"] = os.path.join(self.source, "python")
        full_env["FLASHCCL_BUILD_DIR"] = self.build
        for name in ("FLASHCCL_DEBUG", "FLASHCCL_TRACE", "FLASHCCL_HANG_ACTION", "FLASHCCL_LANES", "FLASHCCL_ALGO",
                     "NCCL_DEBUG"):
            full_env.pop(name, None)
        if no_gpu:
            full_env["CUDA_VISIBLE_DEVICES"] = ""
        full_env.update(env or {})
        command = ([sys.executable, "-m", "flashccl"] if python else [self.tool]) + argv
        return subprocess.run(command, cwd=cwd or self.scratch, env=full_env, capture_output=True, text=True,
                              timeout=120, stdin=subprocess.DEVNULL)

    def check(self, name: str, result: subprocess.CompletedProcess, ok: Callable[[subprocess.CompletedProcess], bool],
              want: str) -> None:
        passed = ok(result)
        print(f"{'PASS' if passed else 'FAIL'} {name}", flush=True)
        if not passed:
            print(f"     want: {want}\n     got: exit {result.returncode}\n     stdout: {result.stdout[-800:]}"
                  f"\n     stderr: {result.stderr[-800:]}")
            self.failures.append(name)


def no_usage_error(r: subprocess.CompletedProcess) -> bool:
    return USAGE_SIGNATURE not in r.stderr and "not expected" not in r.stderr


def driver_loads() -> bool:
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


def walk(w: Walk) -> None:
    # Row 1: every shipped perf record reads (schema 1 or 2); with matplotlib it plots.
    records = [p for p in sorted(glob.glob(os.path.join(w.source, "bench", "results", "*.json")))
               if json.load(open(p, encoding="utf-8")).get("tool") == "flashccl perf"]
    try:
        import matplotlib  # noqa: F401
        have_matplotlib = True
    except ImportError:
        have_matplotlib = False
    for path in records:
        relative = os.path.relpath(path, w.source)
        if have_matplotlib:
            out = os.path.join(w.scratch, os.path.basename(path) + ".png")
            r = w.run(["plot", relative, "-o", out], python=True, cwd=w.source)
            w.check(f"python -m flashccl plot {relative}", r, lambda r: r.returncode == 0 and os.path.exists(out),
                    "exit 0 and a picture")
        else:
            r = subprocess.run([sys.executable, "-c", "import sys; from flashccl import _plot; "
                                "print(_plot.record_schema(_plot.load_record(sys.argv[1])))", path],
                               env=dict(os.environ, PYTHONPATH=os.path.join(w.source, "python")),
                               capture_output=True, text=True, timeout=60)
            w.check(f"plot's reader on {relative} (no matplotlib here)", r,
                    lambda r: r.returncode == 0 and r.stdout.strip() in ("1", "2"), "read, schema 1 or 2")

    # Row 2: plan --check one file, as docs/algorithms.md writes it.
    one = "algorithms/allreduce_1step--gpus_8-instances_4-proto_LL.xml"
    r = w.run(["plan", "--check", one], cwd=w.source)
    w.check(f"flashccl plan --check {one}", r,
            lambda r: r.returncode == 0 and r.stdout == f"ok       {one}\n1 of 1 algorithm files valid\n",
            "one file checked, the docs' output")

    # Row 3: premulsum is not offered by perf, and neither spelling is taken.
    r = w.run(["perf", "--help"])
    w.check("flashccl perf --help lists no premulsum", r, lambda r: r.returncode == 0 and "premulsum" not in r.stdout,
            "-o lists sum prod max min avg")
    for op in ("premulsum", "mulsum"):
        r = w.run(["perf", "-o", op])
        w.check(f"flashccl perf -o {op}", r,
                lambda r: r.returncode == 2 and f"'{op}' is not one of sum, prod, max, min, avg or all" in r.stderr,
                "a usage error naming the ops perf takes")

    # Row 4: nccl-tests' -c N, -N 0, --output_file; -p/-y/-R/-S at 0.
    for args in (["-c", "5"], ["-N", "0"], ["--output_file", "x.json"], ["-p", "0", "-y", "0", "-R", "0", "-S", "0"]):
        r = w.run(["perf", *args], no_gpu=True)
        w.check(f"flashccl perf {' '.join(args)}", r,
                lambda r: no_usage_error(r) and "needs NVIDIA GPUs" in r.stderr, "past the command line, to the GPU")

    # Row 5: one spelling of the shared options in every command.
    for command, args in (("perf", ["--quick"]), ("tune", ["--quick"]), ("tune", ["-J", "t.json"])):
        r = w.run([command, *args], no_gpu=True)
        w.check(f"flashccl {command} {' '.join(args)}", r,
                lambda r: no_usage_error(r) and "needs NVIDIA GPUs" in r.stderr, "past the command line")
    r = w.run(["doctor", "-J", "d.json", "--quick", "--checks", "environment"], no_gpu=True)
    w.check("flashccl doctor -J d.json --quick --checks environment", r,
            lambda r: no_usage_error(r) and os.path.exists(os.path.join(w.scratch, "d.json")), "a JSON report")
    r = w.run(["tune", "-o", "sum"], no_gpu=True)
    w.check("flashccl tune -o sum (tune measures sum only: docs/cli.md)", r,
            lambda r: r.returncode == 2 and "-o" in r.stderr, "an unknown option, as docs/cli.md says")

    # Row 6: trace takes several dumps or folders, options anywhere.
    for folder in ("d1", "d2"):
        os.makedirs(os.path.join(w.scratch, folder), exist_ok=True)
    for args in (["d1", "d2"], ["-J", "x.json", "d1"], ["d1", "-J", "x.json", "d2"]):
        r = w.run(["trace", *args])
        w.check(f"flashccl trace {' '.join(args)}", r,
                lambda r: no_usage_error(r) and "no flashccl dumps in d1" in r.stderr, "the folders read")

    # Rows 7-9: the library's variables, through plan (it reads them as the library does).
    plan = ["plan", "--topo", "hopper-2gpu-nvlink", "-b", "1K", "-e", "1K"]
    for variable, value, expected in (
            ("FLASHCCL_LANES", "500", "FLASHCCL_LANES='500' is not a count from 1 to 64; using the default 64"),
            ("FLASHCCL_ALGO", "bogus", "unknown algorithm 'bogus' (known: nccl, allreduce_oneshot"),
            ("FLASHCCL_DEBUG", "LOUD", "FLASHCCL_DEBUG='LOUD' is not one of VERSION, WARN, INFO, TRACE, ABORT"),
            ("FLASHCCL_HANG_ACTION", "explode", "FLASHCCL_HANG_ACTION='explode' is not one of report, abort, revoke; "
                                                "using the default report"),
            ("FLASHCCL_TRACE", "maybe", "FLASHCCL_TRACE='maybe' is not one of 0, 1, full, off, on; using the default 1")):
        r = w.run(plan, env={variable: value})
        w.check(f"{variable}={value} flashccl plan", r, lambda r: expected in r.stdout + r.stderr, expected)

    # Row 10: no NVIDIA driver says so.
    r = w.run(["perf"], no_gpu=not driver_loads())
    want = "no NVIDIA driver here" if not driver_loads() else "needs NVIDIA GPUs"
    w.check("flashccl perf without a GPU", r,
            lambda r: r.returncode == 2 and want in r.stderr and "driver version is insufficient" not in r.stderr, want)
    r = w.run(["tune"], no_gpu=True)
    w.check("flashccl tune without a GPU", r,
            lambda r: r.returncode == 2 and "flashccl tune needs NVIDIA GPUs" in r.stderr
            and "driver version is insufficient" not in r.stderr, "flashccl tune needs NVIDIA GPUs; ...")

    # Row 11: the Python package's usage errors are exit status 2.
    for args in (["run"], ["env", "--debug", "LOUD"]):
        r = w.run(args, python=True)
        w.check(f"python -m flashccl {' '.join(args)}", r,
                lambda r: r.returncode == 2 and r.stderr.count("\n") == 1, "one line, exit 2")

    # Row 12: a shipped topology by its file name, outside the checkout.
    r = w.run(["plan", "--topo", "hopper-8gpu-nvswitch.xml", "-e", "64"], cwd=w.scratch)
    w.check("flashccl plan --topo hopper-8gpu-nvswitch.xml (outside the checkout)", r,
            lambda r: r.returncode == 0 and "communicator:  8 ranks" in r.stdout, "the shipped topology")

    # Row 13: stale text is gone.
    stale = ("perf -c <collective>", "follow them when they land", "runs \"perf, plan, version\"",
             "the command: `perf`, `plan`, `version`", "--smoke")
    pages = [os.path.join(w.source, "README.md")] + glob.glob(os.path.join(w.source, "docs", "*.md"))
    found = [f"{os.path.relpath(p, w.source)}: {text}" for p in pages for text in stale
             if text in open(p, encoding="utf-8").read()]
    print(f"{'PASS' if not found else 'FAIL'} no stale text in README.md and docs/" + "".join(f"\n     {f}" for f in found))
    if found:
        w.failures.append("stale text")


def main(args: List[str]) -> int:
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="flashccl-newcomer-") as scratch:
        w = Walk(os.path.abspath(args[0]), os.path.abspath(args[1]), scratch)
        walk(w)
    print(f"{'FAIL' if w.failures else 'PASS'}: newcomer walk, {len(w.failures)} step(s) failed")
    return 1 if w.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
