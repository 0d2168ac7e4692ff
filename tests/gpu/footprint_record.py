#!/usr/bin/env python3
"""Turns tests/gpu/footprint_check.sh's results into the record (footprint.md + footprint.json).

usage: footprint_record.py RESULTS.jsonl CHECKS.txt OUTDIR
Memory is per process (NVML; where NVML cannot say, the device's used memory divided by the
job's ranks), averaged over the job's ranks; "cost" is what the communicators
added over the process before them (after the world communicator and the test buffers).
Exit 1 when a result is missing (a job failed) so the script's status says so."""
import json
import statistics
import sys
from collections import defaultdict


def main():
    results_path, checks_path, outdir = sys.argv[1:4]
    rows = [json.loads(line) for line in open(results_path) if line.strip()]
    checks = [line.rstrip("\n") for line in open(checks_path) if line.strip()]
    jobs = defaultdict(list)
    for row in rows:
        jobs[row["job"]].append(row)

    def mean(job, key):
        values = [r[key] for r in jobs.get(job, []) if r.get(key, -1) >= 0]
        return statistics.mean(values) if values else None

    def cost(job, step):
        base, at = mean(job, "process_base_mib"), mean(job, f"process_{step}_mib")
        if base is not None and at is not None:
            return at - base
        # No per-process figure from NVML: the device's used memory, shared by the job's ranks.
        base, at = mean(job, "device_base_mib"), mean(job, f"device_{step}_mib")
        ranks = jobs.get(job, [{}])[0].get("nranks", 1)
        return None if base is None or at is None else (at - base) / ranks

    memory, setup = [], []
    ranks = sorted({r["nranks"] for r in rows if r["mode"] == "memory"})
    comms = sorted({r["comms"] for r in rows if r["mode"] == "memory"})
    for n in ranks:
        for k in comms:
            entry = {"ranks": n, "comms": k}
            for lib in ("nccl", "flashccl"):
                job = f"memory-{lib}-{n}r-{k}c"
                entry[lib] = {step: cost(job, step) for step in ("created", "small", "large", "destroyed")}
                algos = jobs.get(job, [{}])[0]
                entry[lib]["small_algorithm"] = algos.get("small_algorithm")
                entry[lib]["large_algorithm"] = algos.get("large_algorithm")
            memory.append(entry)
        medians = {}
        for lib in ("nccl", "flashccl"):
            values = [r["median_ms"] for r in jobs.get(f"setup-{lib}-{n}r", [])]
            medians[lib] = max(values) if values else None  # the slowest rank's median
        setup.append({"ranks": n, "median_ms": medians})

    def fmt(v):
        return "-" if v is None else f"{v:.1f}"

    def ratio(a, b):
        return "-" if a is None or b is None or b <= 0 else f"{100.0 * a / b:.0f} %"

    md = ["# Footprint: flashccl beside NCCL on one H200 (issue 26)", "",
          "Every rank its own process on GPU 0 (own `NCCL_HOSTID`, NCCL over sockets on lo, flashccl through",
          "CUDA IPC), `FLASHCCL_UNMEASURED=1`, defaults otherwise (`FLASHCCL_BUFFER_BYTES=64M`,",
          "`FLASHCCL_SMALL_CALL_BYTES=64K`, `FLASHCCL_MEMORY_LIMIT=1G`). Made by `tests/gpu/footprint_check.sh`.", "",
          "## GPU memory per process (MiB the communicators added, mean over ranks)", "",
          "| ranks | comms | NCCL after 4 KiB | flashccl after 4 KiB | flashccl / NCCL | NCCL after 32 MiB | flashccl after 32 MiB | after destroy (NCCL / flashccl) | 32 MiB ran on |",
          "|---|---|---|---|---|---|---|---|---|"]
    for e in memory:
        a, b = e["nccl"], e["flashccl"]
        md.append(f"| {e['ranks']} | {e['comms']} | {fmt(a['small'])} | {fmt(b['small'])} | {ratio(b['small'], a['small'])} | "
                  f"{fmt(a['large'])} | {fmt(b['large'])} | {fmt(a['destroyed'])} / {fmt(b['destroyed'])} | "
                  f"{b.get('large_algorithm') or '-'} (last comm) |")
    md += ["", "## Set-up: ncclCommInitRank to the first 4 KiB AllReduce completed (median of the runs, slowest rank)", "",
           "| ranks | NCCL ms | flashccl ms | flashccl / NCCL |", "|---|---|---|---|"]
    for e in setup:
        m = e["median_ms"]
        md.append(f"| {e['ranks']} | {fmt(m['nccl'])} | {fmt(m['flashccl'])} | {ratio(m['flashccl'], m['nccl'])} |")
    md += ["", "## Checks", "", "```"] + checks + ["```", ""]
    open(f"{outdir}/footprint.md", "w").write("\n".join(md))
    json.dump({"memory": memory, "setup": setup, "checks": checks, "results": rows},
              open(f"{outdir}/footprint.json", "w"), indent=1)
    missing = [e for e in memory if e["flashccl"]["small"] is None or e["nccl"]["small"] is None]
    return 1 if missing or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
