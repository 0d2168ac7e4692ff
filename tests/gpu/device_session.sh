#!/usr/bin/env bash
# One batched session on the GPU machine (the device tool's 2 x H200): build, correctness against
# NCCL, then benchmarks. Logs go to $OUT (or ./out). Usage: tests/gpu/device_session.sh PHASE...
#   build    configure + build the library, the tool and the GPU tests (Release, sm_90)
#   check    perf smoke (pass-through and flashccl) + tests/gpu
#   sweep    flashccl perf 8 B - 1 GiB eager, float sum, the three collectives
#   tune     forced-algorithm sweeps that the selection tables are tuned from
set -uo pipefail
export NCCL_NVLS_ENABLE=0
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
B=build-gpu
F=$B/tools/flashccl
step() { echo "=== $(date +%T) $*"; }

for phase in "$@"; do
  case $phase in
    build)
      step build
      nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi topo -m | head -4
      cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $OUT/build.log 2>&1 &&
        cmake --build $B -j32 --target flashccl flashccl_cli flashccl_gpu_tests >> $OUT/build.log 2>&1 ||
        { tail -40 $OUT/build.log; exit 1; }
      step built ;;
    check)
      step "perf smoke, pass-through"
      FLASHCCL_DISABLE=1 timeout 120 $F perf --smoke -t 2 > $OUT/smoke_passthrough.log 2>&1; echo "exit $?"
      tail -5 $OUT/smoke_passthrough.log
      step "perf smoke, flashccl"
      NCCL_DEBUG=WARN FLASHCCL_DEBUG=INFO timeout 120 $F perf --smoke -t 2 > $OUT/smoke.log 2>&1; echo "exit $?"
      grep -E "flashccl .* active|armed|disabled|WARN" $OUT/smoke.log | head -10
      grep -E "^ +[0-9]+ " $OUT/smoke.log | head -60
      step "gpu tests"
      timeout 300 $B/tests/gpu/flashccl_gpu_tests --gtest_brief=1 > $OUT/gpu_tests.log 2>&1; echo "exit $?"
      grep -E "FAILED|PASSED|Failure|differs" $OUT/gpu_tests.log | head -30 ;;
    sweep)
      step "perf sweep eager"
      timeout 300 $F perf -t 2 -c all -d float -o sum -b 8 -e 1G -f 4 -n 10 -w 3 --pairs 3 > $OUT/sweep.log 2>&1; echo "exit $?"
      grep -vE "^#" $OUT/sweep.log | tail -60 ;;
    tests)
      step "gpu tests"
      timeout 240 $B/tests/gpu/flashccl_gpu_tests --gtest_brief=1 > $OUT/gpu_tests.log 2>&1; echo "exit $?"
      grep -E "FAILED|PASSED|Failure|differs" $OUT/gpu_tests.log | head -30 ;;
    tune)
      step "tune: forced algorithms and knobs"
      rows() { grep -E "^ +[0-9]+ +[0-9]+ " "$1" | awk '{print $1, $7, $11, $15, $NF}'; }
      perfq() { timeout 100 $F perf -t 2 -n 10 -w 3 --pairs 2 --no-check "$@" > $OUT/t.log 2>&1; rows $OUT/t.log; }
      {
      for lanes in 32 64; do for chunk in 16K 64K; do
        echo "== twoshot lanes=$lanes minchunk=$chunk"
        FLASHCCL_LANES=$lanes FLASHCCL_MIN_CHUNK_BYTES=$chunk FLASHCCL_ALGO=allreduce:allreduce_twoshot perfq -c all_reduce -b 512K -e 512M -f 4
      done; done
      echo "== oneshot"; FLASHCCL_ALGO=allreduce:allreduce_oneshot perfq -c all_reduce -b 128K -e 4M -f 2
      for ll in 0 8M; do for lanes in 32 64; do
        echo "== direct ll_max=$ll lanes=$lanes"
        FLASHCCL_LL_MAX_BYTES=$ll FLASHCCL_LANES=$lanes FLASHCCL_ALGO=allgather:allgather_direct,reducescatter:reducescatter_direct perfq -c all_gather,reduce_scatter -b 256K -e 512M -f 4
      done; done
      } 2>&1 | tee $OUT/tune.log ;;
    graph)
      step "graph sweep"
      timeout 200 $F perf -t 2 -G 20 -c all -b 8 -e 64M -f 4 -n 5 -w 1 --pairs 2 > $OUT/graph.log 2>&1; echo "exit $?"
      grep -E "^ +[0-9]+ +[0-9]+ " $OUT/graph.log ;;
    *) echo "unknown phase $phase"; exit 2 ;;
  esac
done
