#!/usr/bin/env bash
# Runs flashccl_host_overhead on the 2 x H200 machine and records it in bench/results/:
#   <date>-h200x2-host-overhead.json   Google Benchmark's JSON: every repetition and aggregates
#   <date>-h200x2-host-overhead.md     size | bare launch us | intercepted us | overhead us | ...
#   <date>-h200x2-host-overhead.log    the console output
# Commit the .md and .json.
#
# usage: bench/host_overhead/run.sh [Google Benchmark flags...]
#   BUILD=dir       a build configured with -DFLASHCCL_BUILD_HOST_BENCH=ON (default: build)
#   MACHINE="..."   how the report names the machine (default: 2 x H200 NV18 (<hostname>))
#   RESULTS=dir     where the files go (default: bench/results)
#
# About 40 s: communicator set-up, then 5 benchmarks x 3 sizes x 5 repetitions; most of the time
# is the GPUs running the 8 MiB kernels between timed batches.
set -uo pipefail

# NVLink multicast can take the shared host's GPUs out of service: never on (DESIGN 2.9).
export NCCL_NVLS_ENABLE=0

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
MACHINE=${MACHINE:-"2 x H200 NV18 ($(hostname))"}
RESULTS=${RESULTS:-$root/bench/results}
binary=$BUILD/bench/host_overhead/flashccl_host_overhead

if [[ ! -x $binary ]]; then
  echo "run.sh: $binary is not there; configure with -DFLASHCCL_BUILD_HOST_BENCH=ON and build" \
       "the target flashccl_host_overhead (or set BUILD)" >&2
  exit 2
fi

mkdir -p "$RESULTS"
base=$RESULTS/$(date +%F)-h200x2-host-overhead
# Five repetitions of 0.05 s of timed calls each: the median is steady to a few nanoseconds, and
# the 8 MiB sizes (where the GPUs' work, not the host's, sets the pace) stay within budget.
command=("$binary" --benchmark_min_time=0.05s --benchmark_repetitions=5
         "--benchmark_out=$base.json" --benchmark_out_format=json "$@")
echo "=== NCCL_NVLS_ENABLE=0 ${command[*]}"
# A failed call can leave one GPU's kernels waiting for ever for the other's: bounded.
timeout 300 "${command[@]}" 2>&1 | tee "$base.log"
status=${PIPESTATUS[0]}
if [[ $status -ne 0 ]]; then
  echo "run.sh: flashccl_host_overhead exited $status" >&2
  exit 1
fi

# Paths relative to the repository, as the other records show them.
shown="NCCL_NVLS_ENABLE=0 ${command[*]}"
shown="${shown//$root\//} (bench/host_overhead/run.sh)"
python3 "$here/to_markdown.py" "$base.json" --machine "$MACHINE" --command "$shown" -o "$base.md"
status=$?
cat "$base.md"
exit $status
