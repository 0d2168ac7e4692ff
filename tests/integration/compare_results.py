"""Compare torch_collectives.py results of flashccl runs against a plain-NCCL run.

    python compare_results.py BASELINE_DIR RUN_DIR [RUN_DIR ...]

Each folder holds rank<R>.json. Checks, for every run folder: the same ranks and cases as the
baseline; every result's bytes (sha256) equal to the baseline's; flashccl mapped in every rank of
the run and in none of the baseline; and, with two ranks, every result equal to the locally
computed reference (a 2-rank sum has one correctly rounded answer). Prints one line per problem
and a closing 'N passed, N failed' line (a check per run folder and rank); exits 1 on any failure.
"""

import glob
import json
import os
import sys


def load(folder):
    ranks = {}
    for path in sorted(glob.glob(os.path.join(folder, "rank*.json"))):
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        ranks[report["rank"]] = report
    if not ranks:
        raise SystemExit(f"compare_results: no rank*.json in {folder}")
    return ranks


def problems_in_rank(base, run, name):
    problems = []
    if not run["flashccl_mapped"]:
        problems.append(f"{name}: libflashccl.so was not mapped in this rank")
    missing = sorted(set(base["results"]) - set(run["results"]))
    if missing:
        problems.append(f"{name}: {len(missing)} cases missing, e.g. {missing[0]}")
    for key, expected in sorted(base["results"].items()):
        got = run["results"].get(key)
        if got is None:
            continue
        if got["sha256"] != expected["sha256"]:
            problems.append(f"{name}: {key}: bytes differ from NCCL's (head {got['head']} vs {expected['head']}, "
                            f"max error vs reference {got['max_abs_error']})")
        elif run["world_size"] == 2 and not got["equals_reference"]:
            problems.append(f"{name}: {key}: differs from the reference sum")
    return problems


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    baseline = load(argv[0])
    passed = failed = 0
    for rank, report in sorted(baseline.items()):
        problems = []
        if report["flashccl_mapped"]:
            problems.append(f"baseline rank {rank}: libflashccl.so is mapped: the baseline is not plain NCCL")
        if report["world_size"] == 2:
            problems += [f"baseline rank {rank}: {key}: NCCL differs from the reference sum"
                         for key, record in sorted(report["results"].items()) if not record["equals_reference"]]
        for line in problems:
            print(line)
        passed, failed = (passed + 1, failed) if not problems else (passed, failed + 1)
    for folder in argv[1:]:
        runs = load(folder)
        if sorted(runs) != sorted(baseline):
            print(f"{folder}: ranks {sorted(runs)}, baseline has {sorted(baseline)}")
            failed += 1
        for rank, report in sorted(runs.items()):
            if rank not in baseline:
                continue
            problems = problems_in_rank(baseline[rank], report, f"{os.path.basename(folder.rstrip('/'))} rank {rank}")
            for line in problems[:20]:
                print(line)
            if len(problems) > 20:
                print(f"... and {len(problems) - 20} more")
            passed, failed = (passed + 1, failed) if not problems else (passed, failed + 1)
        cases = len(next(iter(runs.values()))["results"])
        print(f"{folder}: {len(runs)} ranks x {cases} results compared")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
