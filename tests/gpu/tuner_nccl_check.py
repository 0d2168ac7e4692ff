#!/usr/bin/env python3
"""NCCL with libnccl-tuner-flashccl.so, on ONE GPU: are the plugin's choices applied, and are
results unchanged? (tests/gpu/tuner_nccl_check.sh builds the plugin and runs this.)

Two processes share the GPU, each with its own NCCL_HOSTID, so NCCL takes them for two nodes and
joins them through its socket transport on lo. Each runs broadcast, reduce, all-gather,
reduce-scatter and all-reduce (torch.distributed, NCCL backend) at two sizes, three times over:

  baseline  no tuner plugin: NCCL's own choice for every call, and the reference results
  table     NCCL_TUNER_PLUGIN=<plugin>, FLASHCCL_TUNER_FILE=<a table written from the baseline>
            that keeps NCCL's algorithm but forces the other protocol, on 1 channel
  forced    NCCL_TUNER_PLUGIN=<plugin>, FLASHCCL_TUNER_FORCE=ring:simple:2

With NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING, NCCL's rank 0 logs every call's algorithm,
protocol and channels ("AllReduce: 4096 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..0}";
older releases print numbers instead, "4096 Bytes -> Algo 1 proto 2 time ..."). The check reads those lines, compares every result with the
baseline bit for bit, and writes a markdown record. Timings mean nothing here: the processes
time-slice one GPU, so none are taken.

    tuner_nccl_check.py --plugin PATH --out DIR [--gpu N]
"""

from __future__ import annotations

import argparse
import collections
import datetime
import os
import re
import socket
import subprocess
import sys
import zlib

WORLD = 2
# (collective, NCCL's nBytes: the whole buffer as nccl-tests counts it). Every size appears once,
# so a log line that names only the size still says which call it was.
CASES = [
    ("allreduce", 4096), ("allreduce", 4 << 20),
    ("allgather", 8192), ("allgather", 8 << 20),
    ("reducescatter", 12288), ("reducescatter", 2 << 20),
    ("broadcast", 16384), ("broadcast", 1 << 20),
    ("reduce", 20480), ("reduce", 3 << 20),
]
ITERATIONS = 2
FORCE = "ring:simple:2"
FORCED_CHOICE = ("ring", "simple")
FORCED_CHANNELS = 2
TABLE_CHANNELS = 1
RUN_TIMEOUT_S = 300

NCCL_FUNCS = {"AllReduce": "allreduce", "AllGather": "allgather", "ReduceScatter": "reducescatter",
              "Broadcast": "broadcast", "Reduce": "reduce"}
ALGORITHMS = ["tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"]
PROTOCOLS = ["ll", "ll128", "simple"]
# NCCL 2.28's form (names, channels), and older releases' (numbers); rank 0 only in both.
CHOICE_LINE = re.compile(r"NCCL INFO (AllReduce|AllGather|ReduceScatter|Broadcast|Reduce): (\d+) Bytes"
                         r" -> Algo (\w+) proto (\w+) channel\{Lo\.\.Hi\}=\{(\d+)\.\.(\d+)\}")
OLD_CHOICE_LINE = re.compile(r"NCCL INFO (\d+) Bytes -> Algo (\d+) proto (\d+) time")
Choice = collections.namedtuple("Choice", "algorithm protocol channels")  # channels None: not logged


# ---- one rank (a child process) ----------------------------------------------------------------

def case_input(coll, nbytes, rank):
    """Small integers as floats: every sum is exact, so any algorithm gives the same bits."""
    import torch

    elements = nbytes // 4 // (WORLD if coll == "allgather" else 1)
    generator = torch.Generator().manual_seed(zlib.crc32(f"{coll}:{nbytes}:{rank}".encode()))
    return torch.randint(-8, 9, (elements,), generator=generator).float()


def run_case(coll, nbytes, rank):
    import torch
    import torch.distributed as dist

    data = case_input(coll, nbytes, rank).cuda()
    if coll == "allreduce":
        dist.all_reduce(data)
        return data
    if coll == "allgather":
        out = torch.empty(data.numel() * WORLD, device="cuda")
        dist.all_gather_into_tensor(out, data)
        return out
    if coll == "reducescatter":
        out = torch.empty(data.numel() // WORLD, device="cuda")
        dist.reduce_scatter_tensor(out, data)
        return out
    if coll == "broadcast":
        if rank != 0:
            data.zero_()
        dist.broadcast(data, src=0)
        return data
    dist.reduce(data, dst=0)
    return data if rank == 0 else torch.empty(0, device="cuda")  # only the root's buffer is defined


def rank_main(args):
    import torch
    import torch.distributed as dist

    torch.cuda.set_device(0)  # CUDA_VISIBLE_DEVICES shows each process the one GPU
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{args.port}", rank=args.rank,
                            world_size=WORLD)
    results = {}
    for coll, nbytes in CASES:
        for _ in range(ITERATIONS):
            out = run_case(coll, nbytes, args.rank)
        results[f"{coll}:{nbytes}"] = out.cpu()
    torch.cuda.synchronize()
    torch.save(results, args.results)
    dist.destroy_process_group()
    return 0


# ---- the check (the parent) --------------------------------------------------------------------

def expected_result(coll, nbytes, rank):
    import torch

    inputs = [case_input(coll, nbytes, r) for r in range(WORLD)]
    if coll == "allreduce":
        return sum(inputs)
    if coll == "allgather":
        return torch.cat(inputs)
    if coll == "reducescatter":
        return sum(inputs).chunk(WORLD)[rank]
    if coll == "broadcast":
        return inputs[0]
    return sum(inputs) if rank == 0 else torch.empty(0)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker_environment(rank, gpu, log_file, extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("FLASHCCL_TUNER_", "NCCL_TUNER_", "NCCL_ALGO", "NCCL_PROTO"))
           and k not in ("NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS", "FLASHCCL_TOPO_FILE", "LD_PRELOAD")}
    env.update({
        "CUDA_VISIBLE_DEVICES": str(gpu),
        "NCCL_HOSTID": f"flashccl-tuner-check-{rank}",  # two "nodes" on one GPU
        "NCCL_SOCKET_IFNAME": "lo",
        "NCCL_IB_DISABLE": "1",
        "NCCL_NVLS_ENABLE": "0",  # NVLink multicast is off in everything we start (DESIGN §2.9)
        "NCCL_DEBUG": "INFO",
        "NCCL_DEBUG_SUBSYS": "INIT,TUNING",
        "NCCL_DEBUG_FILE": log_file,
        "FLASHCCL_DISABLE": "1",  # should libflashccl be around, NCCL itself must run every call
        "PYTHONUNBUFFERED": "1",
    })
    env.update(extra)
    return env


class Run:
    def __init__(self, name, out_dir):
        self.name = name
        self.log = [os.path.join(out_dir, f"{name}.rank{r}.nccl.log") for r in range(WORLD)]
        self.output = [os.path.join(out_dir, f"{name}.rank{r}.out") for r in range(WORLD)]
        self.results_file = [os.path.join(out_dir, f"{name}.rank{r}.pt") for r in range(WORLD)]
        self.problems = []
        self.results = [None] * WORLD
        self.choices = {}
        self.log_text = [""] * WORLD

    def start(self, gpu, extra):
        port = free_port()
        processes = []
        for rank in range(WORLD):
            for path in (self.log[rank], self.results_file[rank]):
                if os.path.exists(path):
                    os.remove(path)
            with open(self.output[rank], "w") as output:
                processes.append(subprocess.Popen(
                    [sys.executable, os.path.abspath(__file__), "rank", "--rank", str(rank),
                     "--port", str(port), "--results", self.results_file[rank]],
                    env=worker_environment(rank, gpu, self.log[rank], extra),
                    stdout=output, stderr=subprocess.STDOUT))
        for rank, process in enumerate(processes):
            try:
                code = process.wait(timeout=RUN_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                for p in processes:
                    p.kill()
                code = "timeout"
            if code != 0:
                self.problems.append(f"rank {rank} exited with {code}; last lines of {self.output[rank]}:\n"
                                     + tail(self.output[rank]))
        self.collect()

    def collect(self):
        import torch

        for rank in range(WORLD):
            if os.path.exists(self.log[rank]):
                with open(self.log[rank], errors="replace") as f:
                    self.log_text[rank] = f.read()
            if os.path.exists(self.results_file[rank]):
                self.results[rank] = torch.load(self.results_file[rank])
        self.choices = parse_choices(self.log_text[0])  # NCCL logs choices on rank 0 only

    def warnings(self):
        return [line for text in self.log_text for line in text.splitlines() if "WARN TUNER/flashccl" in line]

    def tuner_lines(self):
        return [line for line in self.log_text[0].splitlines() if "TUNER/" in line]


def tail(path, lines=20):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return "(no output)"


def canonical(name):
    return name.lower().replace("_", "")


def parse_choices(text):
    """{(collective, nBytes): [Choice, ...]} from NCCL's INFO lines."""
    by_size = {nbytes: coll for coll, nbytes in CASES}
    choices = collections.defaultdict(list)
    for match in CHOICE_LINE.finditer(text):
        func, printed, algorithm, protocol, low, high = match.groups()
        coll = NCCL_FUNCS[func]
        # NCCL prints count x type size: per rank for all-gather and reduce-scatter.
        nbytes = int(printed) * (WORLD if coll in ("allgather", "reducescatter") else 1)
        algorithm = next((a for a in ALGORITHMS if canonical(a) == canonical(algorithm)), algorithm.lower())
        choices[(coll, nbytes)].append(Choice(algorithm, protocol.lower(), int(high) - int(low) + 1))
    for match in OLD_CHOICE_LINE.finditer(text):
        nbytes, algorithm, protocol = (int(g) for g in match.groups())
        if nbytes in by_size:
            choices[(by_size[nbytes], nbytes)].append(Choice(ALGORITHMS[algorithm], PROTOCOLS[protocol], None))
    return choices


def other_protocol(protocol):
    return "ll" if protocol == "simple" else "simple"


def write_table(path, defaults):
    """Keep NCCL's algorithm for each call, force the other protocol, on TABLE_CHANNELS channels."""
    rows = []
    for coll, nbytes in CASES:
        default = defaults[(coll, nbytes)]
        rows.append(f'  <row coll="{coll}" minBytes="{nbytes}" maxBytes="{nbytes}" '
                    f'algorithm="{default.algorithm}" protocol="{other_protocol(default.protocol)}" '
                    f'channels="{TABLE_CHANNELS}"/>')
    with open(path, "w") as f:
        f.write("<!-- written by tests/gpu/tuner_nccl_check.py from NCCL's choices in the baseline run -->\n"
                f'<tuning ranks="{WORLD}">\n' + "\n".join(rows) + "\n</tuning>\n")


def describe(choices):
    if not choices:
        return "(not logged)"
    seen = sorted({f"{c.algorithm}/{c.protocol}" + (f", {c.channels} ch" if c.channels else "") for c in choices})
    return "; ".join(seen)


class Checks:
    def __init__(self):
        self.lines = []

    def check(self, ok, what):
        self.lines.append((bool(ok), what))
        print(("PASS  " if ok else "FAIL  ") + what, flush=True)
        return bool(ok)

    @property
    def passed(self):
        return bool(self.lines) and all(ok for ok, _ in self.lines)


def same_results(run, baseline):
    import torch

    differing = []
    for rank in range(WORLD):
        for coll, nbytes in CASES:
            key = f"{coll}:{nbytes}"
            mine = (run.results[rank] or {}).get(key)
            reference = (baseline.results[rank] or {}).get(key)
            if mine is None or reference is None or not torch.equal(mine, reference):
                differing.append(f"rank {rank} {key}")
    return differing


def check_choices(checks, run, wanted, channels_at_most):
    """wanted: {(coll, nbytes): (algorithm, protocol)}."""
    for coll, nbytes in CASES:
        seen = run.choices.get((coll, nbytes), [])
        algorithm, protocol = wanted[(coll, nbytes)]
        applied = bool(seen) and all(c.algorithm == algorithm and c.protocol == protocol for c in seen)
        channels_ok = all(c.channels is None or c.channels <= channels_at_most for c in seen)
        checks.check(applied and channels_ok,
                     f"{run.name}: {coll} {nbytes} B runs {algorithm}/{protocol} on <= {channels_at_most} "
                     f"channels (NCCL's log: {describe(seen)})")


def environment_facts(gpu):
    facts = {"date": datetime.date.today().isoformat(), "host": socket.gethostname()}
    try:
        import torch

        facts["torch"] = torch.__version__
        facts["NCCL (torch's)"] = ".".join(str(v) for v in torch.cuda.nccl.version())
        facts["GPU"] = f"{torch.cuda.get_device_name(gpu)} (CUDA device {gpu}, both processes)"
    except Exception as error:  # recorded, not fatal: the runs say more
        facts["torch"] = f"unavailable: {error}"
    try:
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        facts["commit"] = subprocess.run(["git", "-C", repo, "rev-parse", "--short", "HEAD"],
                                         capture_output=True, text=True).stdout.strip() or "unknown"
    except OSError:
        facts["commit"] = "unknown"
    return facts


def write_record(path, args, facts, runs, defaults, checks):
    baseline, table, forced = runs
    lines = ["# NCCL with libnccl-tuner-flashccl.so on one GPU (two processes, two NCCL_HOSTIDs)", ""]
    lines += ["| | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in facts.items()]
    lines += [f"| plugin | `{args.plugin}` |",
              f"| command | `tests/gpu/tuner_nccl_check.sh --plugin {args.plugin} --out {args.out}` |",
              f"| verdict | **{'PASS' if checks.passed else 'FAIL'}** |", ""]
    lines += ["Two processes on one GPU, each its own NCCL_HOSTID: NCCL joins them over sockets on lo as "
              "two nodes. Timings mean nothing here (the processes time-slice the GPU); none are taken.",
              "", "## NCCL's choice per call (rank 0's log)", "",
              "| collective | bytes | baseline (no plugin) | table run | forced run "
              f"(`FLASHCCL_TUNER_FORCE={FORCE}`) |", "|---|---:|---|---|---|"]
    for coll, nbytes in CASES:
        lines.append(f"| {coll} | {nbytes} | {describe(baseline.choices.get((coll, nbytes)))} | "
                     f"{describe(table.choices.get((coll, nbytes)))} | "
                     f"{describe(forced.choices.get((coll, nbytes)))} |")
    lines += ["", "## Checks", ""] + [f"- {'PASS' if ok else 'FAIL'}: {what}" for ok, what in checks.lines]
    table_text = "(not written: the baseline did not give NCCL's choice for every call)"
    if os.path.exists(args.table):
        with open(args.table) as f:
            table_text = f.read().rstrip()
    lines += ["", "## The table run's table", "", "```xml", table_text, "```"]
    for run in (table, forced):
        lines += ["", f"## Tuner lines in the {run.name} run (rank 0)", "", "```"] + run.tuner_lines()[:20] + ["```"]
    lines += ["", "Logs: `*.rank*.nccl.log` (NCCL's), `*.rank*.out` (the processes') beside this file."]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main_check(args):
    os.makedirs(args.out, exist_ok=True)
    args.out = os.path.abspath(args.out)
    args.plugin = os.path.abspath(args.plugin)
    args.table = os.path.join(args.out, "table.xml")
    checks = Checks()
    facts = environment_facts(args.gpu)
    print("\n".join(f"{k}: {v}" for k, v in facts.items()), flush=True)

    baseline = Run("baseline", args.out)
    table = Run("table", args.out)
    forced = Run("forced", args.out)
    defaults = {}
    print("== baseline: NCCL without a tuner plugin", flush=True)
    baseline.start(args.gpu, {"NCCL_TUNER_PLUGIN": "none"})
    if checks.check(not baseline.problems, "baseline run completed" + "".join("\n" + p for p in baseline.problems)):
        import torch

        wrong = [f"rank {r} {c}:{n}" for r in range(WORLD) for c, n in CASES
                 if not torch.equal(baseline.results[r][f"{c}:{n}"], expected_result(c, n, r))]
        checks.check(not wrong, "baseline results are the exact sums / copies" + (f" (wrong: {wrong})" if wrong else ""))
        for case in CASES:
            seen = baseline.choices.get(case, [])
            if seen:
                defaults[case] = collections.Counter(seen).most_common(1)[0][0]
        missing = [f"{c} {n}" for c, n in CASES if (c, n) not in defaults]
        checks.check(not missing, "NCCL's log names the algorithm and protocol of every call"
                     + (f" (not for: {', '.join(missing)}; this NCCL's log format is unknown to the check)"
                        if missing else ""))

    if len(defaults) == len(CASES):
        write_table(args.table, defaults)
        print("== table: FLASHCCL_TUNER_FILE with the other protocol for every call", flush=True)
        table.start(args.gpu, {"NCCL_TUNER_PLUGIN": args.plugin, "FLASHCCL_TUNER_FILE": args.table})
        if checks.check(not table.problems, "table run completed" + "".join("\n" + p for p in table.problems)):
            checks.check(any("TUNER/Plugin: Using flashccl" in l for l in table.tuner_lines()),
                         "NCCL loaded the plugin (TUNER/Plugin: Using flashccl)")
            checks.check(any(f"{len(CASES)} of {len(CASES)} rows apply" in l for l in table.tuner_lines()),
                         "the plugin read the table (every row applies to this communicator)")
            check_choices(checks, table, {case: (d.algorithm, other_protocol(d.protocol))
                                          for case, d in defaults.items()}, TABLE_CHANNELS)
            checks.check(not table.warnings(), "no WARN from the plugin" + "".join("\n" + w for w in table.warnings()))
            differing = same_results(table, baseline)
            checks.check(not differing, "every result equals the baseline's, bit for bit"
                         + (f" (differs: {differing})" if differing else ""))

        print(f"== forced: FLASHCCL_TUNER_FORCE={FORCE}", flush=True)
        forced.start(args.gpu, {"NCCL_TUNER_PLUGIN": args.plugin, "FLASHCCL_TUNER_FORCE": FORCE})
        if checks.check(not forced.problems, "forced run completed" + "".join("\n" + p for p in forced.problems)):
            check_choices(checks, forced, {case: FORCED_CHOICE for case in CASES}, FORCED_CHANNELS)
            changed = [case for case, d in defaults.items() if (d.algorithm, d.protocol) != FORCED_CHOICE]
            checks.check(changed, f"the forced choice differs from NCCL's own for {len(changed)} of {len(CASES)} calls")
            checks.check(not forced.warnings(), "no WARN from the plugin" + "".join("\n" + w for w in forced.warnings()))
            differing = same_results(forced, baseline)
            checks.check(not differing, "every result equals the baseline's, bit for bit"
                         + (f" (differs: {differing})" if differing else ""))

    record = os.path.join(args.out, "tuner-nccl-check.md")
    write_record(record, args, facts, (baseline, table, forced), defaults, checks)
    failed = [what.splitlines()[0] for ok, what in checks.lines if not ok]
    print(f"\nrecord: {record}")
    if checks.passed:
        print(f"PASS: {len(checks.lines)} checks")
        return 0
    print(f"FAIL: {len(failed)} of {len(checks.lines)} checks failed:\n  " + "\n  ".join(failed))
    return 1


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command")
    check = sub.add_parser("check", help="run the three runs and the checks (the default)")
    check.add_argument("--plugin", required=True, help="path of libnccl-tuner-flashccl.so")
    check.add_argument("--out", required=True, help="folder for the record, logs and table")
    check.add_argument("--gpu", type=int, default=0, help="CUDA device both processes use (default 0)")
    rank = sub.add_parser("rank", help="one of the two processes (started by check)")
    rank.add_argument("--rank", type=int, required=True)
    rank.add_argument("--port", type=int, required=True)
    rank.add_argument("--results", required=True)
    if argv and argv[0] not in ("check", "rank", "-h", "--help"):
        argv = ["check"] + argv
    args = parser.parse_args(argv)
    if args.command == "rank":
        return rank_main(args)
    if args.command is None:
        parser.print_help()
        return 2
    if not os.path.isfile(args.plugin):
        print(f"tuner_nccl_check: no plugin at {args.plugin}", file=sys.stderr)
        return 2
    try:
        import torch
    except ImportError as error:
        print(f"tuner_nccl_check: needs PyTorch with CUDA ({error})", file=sys.stderr)
        return 2
    if not torch.cuda.is_available() or args.gpu >= torch.cuda.device_count():
        print(f"tuner_nccl_check: no CUDA device {args.gpu} (torch sees {torch.cuda.device_count()})",
              file=sys.stderr)
        return 2
    return main_check(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
