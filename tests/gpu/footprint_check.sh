#!/usr/bin/env bash
# Issue 26 on ONE GPU: what a communicator costs, flashccl beside plain NCCL. Every rank is its
# own process on GPU 0 with its own NCCL_HOSTID (NCCL joins them over sockets on lo, our kernels
# reach each other through CUDA IPC): memory is real there, timings only roughly. The same
# program (flashccl_footprint_rank, linked with the real NCCL) runs with LD_PRELOAD=libflashccl.so
# and without it.
#   memory   1, 16 and 64 communicators per job of 2 and 4 ranks: used with 4 KiB AllReduces, then
#            one 32 MiB AllReduce each, then destroyed (GPU memory of each process, NVML)
#   setup    ncclCommInitRank -> first 4 KiB AllReduce completed, median of 20, 2 and 4 ranks
#   churn    200 communicators created, used and destroyed: memory back within 1 MiB (flashccl)
#   budget   FLASHCCL_MEMORY_LIMIT=100M: one communicator grows, the next two keep 32 MiB on NCCL
#   capture  a 32 MiB call in a CUDA-graph capture goes to NCCL; the next eager one grows
#
# usage: BUILD=build tests/gpu/footprint_check.sh OUTDIR
#   COMMS="1 16 64"  RANKS="2 4"  SETUP_RUNS=20  CHURN=200  CHURN_NCCL=0 (plain NCCL's churn too)
#   JOB_LIMIT=90 (seconds per job)
# Writes OUTDIR/footprint.md and OUTDIR/footprint.json (the record), OUTDIR/results.jsonl and
# every rank's log under OUTDIR/logs/. Prints "PASS name" / "FAIL name" per check; exit status 0
# when every check passed. About 3-4 minutes.
set -uo pipefail
# docs/design.md, "No NVLink multicast".
export NCCL_NVLS_ENABLE=0 NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo} FLASHCCL_UNMEASURED=1
OUTDIR=${1:?usage: BUILD=build tests/gpu/footprint_check.sh OUTDIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$root/build}
RANK_BIN=${RANK_BIN:-$BUILD/tests/gpu/flashccl_footprint_rank}
LIB=${LIB:-$BUILD/src/libflashccl.so}
COMMS=${COMMS:-"1 16 64"}
RANKS=${RANKS:-"2 4"}
SETUP_RUNS=${SETUP_RUNS:-20}
CHURN=${CHURN:-200}
CHURN_NCCL=${CHURN_NCCL:-0}
JOB_LIMIT=${JOB_LIMIT:-90}
for f in "$RANK_BIN" "$LIB"; do
  [[ -e $f ]] || { echo "FAIL setup: $f missing (build flashccl_footprint_rank and flashccl in $BUILD)"; exit 2; }
done
mkdir -p "$OUTDIR/logs"
results=$OUTDIR/results.jsonl
: > "$results"
checks=$OUTDIR/checks.txt
: > "$checks"
status=0

# job NAME NRANKS flashccl|nccl MODE N [VAR=VALUE...]: one job, every rank in the background.
job() {
  local name=$1 n=$2 lib=$3 mode=$4 count=$5
  shift 5
  local iddir pids=() r code failed=0
  iddir=$(mktemp -d)
  for ((r = 0; r < n; r++)); do
    (
      export NCCL_HOSTID=footprint-$r FLASHCCL_TOPO_FILE=${FLASHCCL_TOPO_FILE:-hopper-${n}gpu-nvlink} "$@"
      [[ $lib == flashccl ]] && export LD_PRELOAD=$LIB NCCL_DEBUG=${NCCL_DEBUG:-WARN}
      exec timeout -k 5 "$JOB_LIMIT" "$RANK_BIN" "$r" "$n" "$iddir/id" "$mode" "$count"
    ) > "$OUTDIR/logs/$name.rank$r.log" 2>&1 &
    pids+=($!)
  done
  for ((r = 0; r < n; r++)); do
    wait "${pids[$r]}"; code=$?
    if [[ $code -ne 0 ]]; then
      failed=1
      echo "  $name rank $r: exit $code$([[ $code -eq 124 || $code -eq 137 ]] && echo " (timed out after ${JOB_LIMIT}s)")"
    fi
    sed -n 's/^RESULT //p' "$OUTDIR/logs/$name.rank$r.log" | sed "s/^{/{\"job\": \"$name\", /" >> "$results"
    grep -h '^CHECK ' "$OUTDIR/logs/$name.rank$r.log" >> "$checks"
  done
  rm -rf "$iddir"
  if ((failed)); then
    echo "FAIL $name"
    status=1
  else
    echo "ok   $name"
  fi
}

start=$SECONDS
for n in $RANKS; do
  for k in $COMMS; do
    for lib in nccl flashccl; do job "memory-$lib-${n}r-${k}c" "$n" "$lib" memory "$k"; done
  done
  for lib in nccl flashccl; do job "setup-$lib-${n}r" "$n" "$lib" setup "$SETUP_RUNS"; done
done
job "churn-flashccl-2r" 2 flashccl churn "$CHURN"
((CHURN_NCCL > 0)) && job "churn-nccl-2r" 2 nccl churn "$CHURN_NCCL"
job "budget-flashccl-2r" 2 flashccl budget 1 FLASHCCL_MEMORY_LIMIT=100M NCCL_DEBUG=INFO
if grep -q "FLASHCCL_MEMORY_LIMIT=100 MiB" "$OUTDIR"/logs/budget-flashccl-2r.rank*.log; then
  echo "CHECK budget_info_line PASS all: an INFO line names FLASHCCL_MEMORY_LIMIT" >> "$checks"
else
  echo "CHECK budget_info_line FAIL all: no INFO line names FLASHCCL_MEMORY_LIMIT" >> "$checks"
fi
job "capture-flashccl-2r" 2 flashccl capture 1
echo "all jobs: $((SECONDS - start)) s"

if grep -q ' FAIL ' "$checks"; then status=1; fi
grep -h '^CHECK ' "$checks" | awk '{print ($3 == "PASS" ? "PASS " : "FAIL ") $2 ": " substr($0, index($0, $4))}' | sort | uniq -c |
  sed 's/^ *//'
"${PYTHON:-python3}" "$root/tests/gpu/footprint_record.py" "$results" "$checks" "$OUTDIR" || status=1
echo "record: $OUTDIR/footprint.md, $OUTDIR/footprint.json"
exit $status
