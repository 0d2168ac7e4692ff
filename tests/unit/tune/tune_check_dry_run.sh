#!/usr/bin/env bash
# tests/gpu/tune_check.sh on a CPU: it parses (bash -n), and its --dry-run prints the commands the
# GPU machine will run, with the environment the one-GPU check depends on. Usage: SCRIPT OUTDIR
set -uo pipefail
script=$(dirname "$0")/../../gpu/tune_check.sh
out=${1:?usage: tune_check_dry_run.sh OUTDIR}
fail() { echo "FAIL: $*"; exit 1; }
bash -n "$script" || fail "bash -n $script"
text=$(BUILD=build-carry bash "$script" --dry-run "$out") || fail "--dry-run exited $?"
echo "$text"
expect() { grep -qE -- "$1" <<< "$text" || fail "the dry run has no line matching: $1"; }
# Two ranks of one launched job on GPU 0, each its own NCCL_HOSTID, meeting on 127.0.0.1.
expect '^RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 NCCL_HOSTID=flashccl-tune-check-0 NCCL_COMM_ID=127\.0\.0\.1:[0-9]+ NCCL_NVLS_ENABLE=0 NCCL_SOCKET_IFNAME=lo '
expect '^RANK=1 WORLD_SIZE=2 LOCAL_RANK=0 NCCL_HOSTID=flashccl-tune-check-1 '
# The binaries are the carried build's.
expect 'build-carry/tools/flashccl tune --launched -b 64K -e 1M -f 4 --coll allreduce,allgather --candidates '
expect '--plugin build-carry/plugins/tuner/libnccl-tuner-flashccl\.so'
expect ' --pick fastest --output .*/table\.xml -J .*/tune\.json'
expect 'tune --launched -b 64K -e 1M -f 4 --coll allreduce,allgather -T 60 --verify .*/table\.xml'
expect '^CUDA_VISIBLE_DEVICES= build-carry/tools/flashccl tune '
expect 'TIMINGS ON ONE SHARED GPU MEAN NOTHING'
[[ $(grep -c ' NCCL_NVLS_ENABLE=0 ' <<< "$text") -eq 4 ]] || fail "NCCL_NVLS_ENABLE=0 is not on every launched rank"
echo "PASS"
