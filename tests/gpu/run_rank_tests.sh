#!/usr/bin/env bash
# Runs a test program as N processes, one rank each, the way real jobs run (rank_process.h):
#   tests/gpu/run_rank_tests.sh [-n N] [-t SECONDS] [-o OUTDIR] PROGRAM [ARGS...]
# On ONE GPU every process gets its own NCCL_HOSTID, so NCCL accepts several ranks on the device
# and joins them through its socket transport (NCCL_SOCKET_IFNAME=lo), while flashccl's kernels
# reach the peers through CUDA IPC. Timings of such runs mean nothing; results do. NVLink
# multicast stays off. Prints each rank's summary; exits non-zero when any rank failed or hung.
set -uo pipefail
n=2 limit=1200 out=${OUT:-$PWD/rank-tests}
while getopts "n:t:o:" opt; do
  case $opt in
    n) n=$OPTARG ;;
    t) limit=$OPTARG ;;
    o) out=$OPTARG ;;
    *) echo "usage: $0 [-n N] [-t SECONDS] [-o OUTDIR] PROGRAM [ARGS...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ $# -ge 1 ]] || { echo "usage: $0 [-n N] [-t SECONDS] [-o OUTDIR] PROGRAM [ARGS...]" >&2; exit 2; }
program=$1; shift
mkdir -p "$out"
iddir=$(mktemp -d)
trap 'rm -rf "$iddir"' EXIT
export NCCL_NVLS_ENABLE=0 NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo}
export FLASHCCL_TOPO_FILE=${FLASHCCL_TOPO_FILE:-hopper-2gpu-nvlink}
pids=()
for ((r = 0; r < n; r++)); do
  FLASHCCL_TEST_RANK=$r FLASHCCL_TEST_NRANKS=$n FLASHCCL_TEST_ID_DIR=$iddir NCCL_HOSTID=flashccl-rank-$r \
    timeout -k 10 "$limit" "$program" "$@" > "$out/rank$r.log" 2>&1 &
  pids+=($!)
done
status=0
for ((r = 0; r < n; r++)); do
  wait "${pids[$r]}"; code=$?
  summary=$(grep -E "^\[  (PASSED|FAILED) +\]|tests? ran" "$out/rank$r.log" | tr '\n' ' ')
  if [[ $code -eq 124 || $code -eq 137 ]]; then
    echo "rank $r: TIMED OUT after ${limit}s (last test: $(grep -E '^\[ RUN' "$out/rank$r.log" | tail -1))"
    status=1
  elif [[ $code -ne 0 ]]; then
    echo "rank $r: FAILED (exit $code) $summary"
    grep -E "^\[  FAILED  \]" "$out/rank$r.log" | sort -u | head -40
    status=1
  else
    echo "rank $r: PASSED $summary"
  fi
done
exit $status
