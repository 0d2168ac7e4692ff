#!/usr/bin/env bash
# Issue 25 on ONE GPU: NCCL opened the way inference engines and CuPy open it, two processes
# sharing GPU 0 (each its own NCCL_HOSTID; NCCL joins them over sockets on lo). Cases:
#   preload      LD_PRELOAD=libflashccl.so, the client ctypes.CDLL("libnccl.so.2") as vLLM does
#                by default: the dlopen redirect gives it flashccl
#   bypath       no preload, ctypes.CDLL(<path of libflashccl.so>) as with VLLM_NCCL_SO_PATH
#   cupy         LD_PRELOAD=libflashccl.so, cupy.cuda.nccl (CuPy links libnccl.so.2)
#   redirect-off LD_PRELOAD with FLASHCCL_DLOPEN=0: the handle is NCCL's own (control: values right,
#                no flashccl in the handle)
# PASS for a case: both ranks exit 0 within 75 s with every AllReduce value right; for all but
# redirect-off, the handle is flashccl, flashcclLastAlgorithm names a flashccl algorithm (not
# NCCL) for the 1024-element AllReduce, and each rank's log has "destroyed: intercepted N" with N > 0.
#
# usage: BUILD=build tests/gpu/engine_check.sh OUTDIR [CASE...]    (default: every case)
#   PYTHON=exe  Python with torch and cupy (default python3)
# Writes OUTDIR/<case>/rank<r>.log; prints one PASS/FAIL line per case; exit 0 when all passed.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
OUTDIR=${1:?usage: BUILD=build tests/gpu/engine_check.sh OUTDIR [CASE...]}
shift
CASES=("$@")
((${#CASES[@]})) || CASES=(preload bypath cupy redirect-off)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$root/build}
PYTHON=${PYTHON:-python3}
LIB=$(cd "$BUILD/src" && pwd)/libflashccl.so
CLIENT=$root/tests/gpu/engine_client.py
[[ -f $LIB ]] || { echo "engine_check.sh: $LIB is missing (BUILD=$BUILD)"; exit 2; }
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

failures=0
run_case() {
  local name=$1 dir=$OUTDIR/$1 preload="" mode=ctypes lib=libnccl.so.2 extra=()
  case $name in
    preload) preload=$LIB ;;
    bypath) lib=$LIB ;;
    cupy) preload=$LIB mode=cupy ;;
    redirect-off) preload=$LIB extra=(FLASHCCL_DLOPEN=0) ;;
    *) echo "FAIL $name: unknown case"; failures=$((failures + 1)); return ;;
  esac
  rm -rf "$dir" && mkdir -p "$dir"
  local pids=()
  for rank in 0 1; do
    env ${preload:+LD_PRELOAD=$preload} "${extra[@]}" NCCL_HOSTID="engine-check-$rank" \
      NCCL_SOCKET_IFNAME=lo NCCL_NVLS_ENABLE=0 FLASHCCL_UNMEASURED=1 NCCL_DEBUG=INFO \
      NCCL_DEBUG_SUBSYS=INIT CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} \
      timeout 75 "$PYTHON" "$CLIENT" --mode "$mode" --rank "$rank" --nranks 2 --lib "$lib" \
      --id-file "$dir/unique_id" >"$dir/rank$rank.log" 2>&1 &
    pids+=($!)
  done
  local why=""
  for rank in 0 1; do
    wait "${pids[$rank]}" || why+=" rank $rank exited $? (124: timeout);"
    local log=$dir/rank$rank.log
    grep -q "result=WRONG" "$log" && why+=" rank $rank: wrong values;"
    grep -q "^rank=$rank done" "$log" || why+=" rank $rank did not finish;"
    if [[ $name != redirect-off ]]; then
      grep -q "^handle=flashccl" "$log" || why+=" rank $rank: the handle is not flashccl;"
      # (comm pointer unknown): a CuPy without NcclCommunicator.ptr; the destroy line below decides.
      grep "^size=1024 " "$log" | grep -qv "algorithm=NCCL\|algorithm=(no flashccl)\|algorithm=(unknown comm)" ||
        why+=" rank $rank: 1024 elements not on a flashccl algorithm ($(grep '^size=1024 ' "$log"));"
      grep -Eq "destroyed: intercepted [1-9]" "$log" || why+=" rank $rank: no 'destroyed: intercepted N>0';"
    else
      grep -q "^handle=nccl" "$log" || why+=" rank $rank: FLASHCCL_DLOPEN=0 still gave flashccl;"
    fi
  done
  if [[ -z $why ]]; then
    echo "PASS $name: $(grep -c 'result=ok' "$dir/rank0.log") sizes right on both ranks; $(grep '^size=' "$dir/rank0.log" | sed 's/.*algorithm=//' | sort | uniq -c | tr -s ' \n' ' ')"
  else
    echo "FAIL $name:$why (logs in $dir)"
    failures=$((failures + 1))
  fi
}

for c in "${CASES[@]}"; do run_case "$c"; done
((failures == 0)) && echo "engine_check: PASS (${CASES[*]})" || echo "engine_check: FAIL ($failures)"
((failures == 0))
