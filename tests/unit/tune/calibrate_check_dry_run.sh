#!/usr/bin/env bash
# tests/gpu/calibrate_check.sh on a CPU: it parses (bash -n), and its --dry-run prints the commands
# the GPU machine will run: the install into a private XDG_CACHE_HOME, then three unchanged jobs
# (the table found; a doctored copy; ranks with different caches). Usage: SCRIPT OUTDIR
set -uo pipefail
script=$(dirname "$0")/../../gpu/calibrate_check.sh
out=${1:?usage: calibrate_check_dry_run.sh OUTDIR}
fail() { echo "FAIL: $*"; exit 1; }
bash -n "$script" || fail "bash -n $script"
text=$(BUILD=build-carry bash "$script" --dry-run "$out") || fail "--dry-run exited $?"
echo "$text"
expect() { grep -qE -- "$1" <<< "$text" || fail "the dry run has no line matching: $1"; }
expect '^RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 NCCL_HOSTID=flashccl-calibrate-check-0 NCCL_COMM_ID=127\.0\.0\.1:[0-9]+ XDG_CACHE_HOME=.*/cache '
expect 'build-carry/tools/flashccl tune --launched -b 64K -e 1M -f 4 --coll allreduce,allgather .* --pick fastest --no-after --install --plugin build-carry/plugins/tuner/libnccl-tuner-flashccl\.so'
# The jobs name no table and do not opt in to unmeasured tables.
expect 'env -u FLASHCCL_UNMEASURED .* build-carry/tools/flashccl perf --launched .* -d float,bfloat16 --placement both .*found\.json'
expect 'XDG_CACHE_HOME=.*/doctored .*refused\.json'
expect '^RANK=1 .*XDG_CACHE_HOME=.*/empty .*disagree\.json'
expect 'XDG_CACHE_HOME=.*/cache .*build-carry/tools/flashccl tune --launched -b 64K -e 1M -f 4 --coll allreduce,allgather .*--verify TABLE'
[[ $(grep -c ' perf --launched ' <<< "$text") -eq 6 ]] || fail "not three two-rank jobs"
grep -q 'FLASHCCL_TOPO_FILE=' <<< "$text" && fail "a job names FLASHCCL_TOPO_FILE"
echo "PASS"
