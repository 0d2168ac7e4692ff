#!/usr/bin/env bash
# Runs flashccl_host_overhead and records it in bench/results/ (<tag>: h200x2 on the 2 x H200
# machine, h200x1 with two virtual ranks on one H200):
#   <date>-<tag>-host-overhead.json   Google Benchmark's JSON: every repetition and aggregates
#   <date>-<tag>-host-overhead.md     size | bare launch us | intercepted us | overhead us | ...
#   <date>-<tag>-host-overhead.log    the console output
# Commit the .md and .json.
#
# usage: bench/host_overhead/run.sh [Google Benchmark flags...]
#   BUILD=dir       a build configured with -DFLASHCCL_BUILD_HOST_BENCH=ON (default: build)
#   MACHINE_TAG=t   h200x2 (2 GPUs, NCCL communicators) or h200x1 (one GPU, --virtual-ranks);
#                   default: h200x1 when nvidia-smi lists one GPU, else h200x2
#   MACHINE="..."   how the report names the machine (default: from MACHINE_TAG, with hostname)
#   RESULTS=dir     where the files go (default: bench/results)
#
# About a minute: communicator set-up, then 5 benchmarks x 3 sizes x 10 repetitions; most of the time
# is the GPUs running the 8 MiB kernels between timed batches (less with one GPU: the grouped
# benchmarks are skipped there).
set -uo pipefail

# NVLink multicast can take the shared host's GPUs out of service: never on (docs/design.md, "No NVLink multicast").
export NCCL_NVLS_ENABLE=0

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
if [[ -z ${MACHINE_TAG:-} ]]; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
  MACHINE_TAG=$([[ $gpus -eq 1 ]] && echo h200x1 || echo h200x2)
fi
case $MACHINE_TAG in
  h200x1) mode=(--virtual-ranks)
          MACHINE=${MACHINE:-"1 x H200, virtual ranks (2 ranks on one GPU) ($(hostname))"} ;;
  h200x2) mode=()
          MACHINE=${MACHINE:-"2 x H200 NV18 ($(hostname))"} ;;
  *) echo "run.sh: MACHINE_TAG=$MACHINE_TAG: expected h200x1 or h200x2" >&2; exit 2 ;;
esac
RESULTS=${RESULTS:-$root/bench/results}
binary=$BUILD/bench/host_overhead/flashccl_host_overhead

if [[ ! -x $binary ]]; then
  echo "run.sh: $binary is not there; configure with -DFLASHCCL_BUILD_HOST_BENCH=ON and build" \
       "the target flashccl_host_overhead (or set BUILD)" >&2
  exit 2
fi

mkdir -p "$RESULTS"
base=$RESULTS/$(date +%F)-$MACHINE_TAG-host-overhead
# Ten repetitions of 0.05 s of timed calls each, the repetitions of all benchmarks shuffled
# together: a bare launch on this host drifts by several tenths of a microsecond from one stretch
# of time to the next (seen 3.4-4.6 us on the H200 machine), as much as the overhead measured, so
# the bare and intercepted numbers must come from interleaved stretches, not one block after the
# other. The 8 MiB sizes (where the GPUs' work sets the pace) keep it within budget.
command=("$binary" "${mode[@]}" --benchmark_min_time=0.05s --benchmark_repetitions=10
         --benchmark_enable_random_interleaving=true
         "--benchmark_out=$base.json" --benchmark_out_format=json "$@")
echo "=== NCCL_NVLS_ENABLE=0 ${command[*]}"
# A failed call can leave one GPU's kernels waiting for ever for the other's: bounded.
timeout 300 "${command[@]}" 2>&1 | tee "$base.log"
status=${PIPESTATUS[0]}
if [[ $status -ne 0 ]]; then
  echo "run.sh: flashccl_host_overhead exited $status" >&2
  exit 1
fi

if [[ ! -f $base.json ]]; then
  echo "run.sh: nothing measured (no GPU?); no report written" >&2
  exit 0
fi

# Paths relative to the repository, as the other records show them.
shown="NCCL_NVLS_ENABLE=0 ${command[*]}"
shown="${shown//$root\//} (bench/host_overhead/run.sh)"
python3 "$here/to_markdown.py" "$base.json" --machine "$MACHINE" --command "$shown" -o "$base.md"
status=$?
cat "$base.md"
exit $status
