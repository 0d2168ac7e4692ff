#!/usr/bin/env bash
# One batched session on the GPU machine (the device tool's 2 x H200): build, correctness against
# NCCL, then benchmarks. Logs go to $OUT (or ./out). Usage: tests/gpu/device_session.sh PHASE...
#   build    configure + build the library, the tool and the GPU tests (Release, sm_90)
#   check    perf smoke (pass-through and flashccl) + tests/gpu
#   sweep    flashccl perf 8 B - 1 GiB eager, float sum, the three collectives
#   tune     forced-algorithm sweeps that the selection tables are tuned from
#   local    all ranks of a communicator on one GPU (1 GPU enough): the MSCCL executor over every
#            shipped program, the built-in kernels at 2, 4 and 8 ranks
#   msccl    every shipped 2-GPU XML algorithm forced with FLASHCCL_ALGO, checked against NCCL
#            and timed by flashccl perf, eager and graph (bench/results/<date>-h200x2-msccl.*)
#   hostbench  host time of an intercepted call vs a bare launch of its kernel (bench/host_overhead):
#            builds flashccl_host_overhead, writes bench/results/<date>-h200x2-host-overhead.*
#   hostbench1  the same on ONE GPU with two virtual ranks (flashccl_host_overhead --virtual-ranks):
#            bench/results/<date>-h200x1-host-overhead.*
#   passthrough  the pass-through check (every collective and send/recv, FLASHCCL_DISABLE=1,
#            threads and processes, eager and graph) with its record in bench/results/
#   ranks1   ONE GPU, one process per rank (each its own NCCL_HOSTID; run_rank_tests.sh): the
#            vs-NCCL suite (flashccl_rank_tests: every dtype/op/size/placement/mode, per-rank
#            PreMulSum scalars, ranks that disagree, captures and replays, residency), every
#            shipped 2-rank XML program against NCCL, and the pass-through check --one-gpu.
#            Uses $B (build here, or BUILD_DIR=<carried build>). Logs and records to $OUT.
#   hierarchy  issue 16's check across nodes on ONE GPU (processes standing for nodes; 1 GPU
#            enough): tests/gpu/hierarchy_check.sh, record to bench/results/<date>-h200x1-hierarchy.md.
#            HIERARCHY_ARGS passes options (e.g. "--scenarios 2x2" and the rest in a second session)
set -uo pipefail
export NCCL_NVLS_ENABLE=0
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
B=${BUILD_DIR:-build-gpu}
F=$B/tools/flashccl
step() { echo "=== $(date +%T) $*"; }

# Issue 4's cost goal: <= 0.3 us of host time over a bare launch of the same kernel
# (bench/host_overhead/run.sh, about a minute). TAG h200x2: 2 GPUs, NCCL communicators; h200x1:
# both ranks on device 0 (bench/host_overhead/one_gpu.h), the grouped context skipped. The build
# adds Google Benchmark and the benchmark to build-gpu.
hostbench() {
  local tag=$1 machine=$2 d
  step "host overhead ($tag): build"
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DFLASHCCL_BUILD_HOST_BENCH=ON > $OUT/hostbench_build.log 2>&1 &&
    cmake --build $B -j16 --target flashccl_host_overhead >> $OUT/hostbench_build.log 2>&1 ||
    { tail -40 $OUT/hostbench_build.log; exit 1; }
  step "host overhead ($tag): run"
  d=$(date +%F)
  BUILD=$B MACHINE_TAG=$tag MACHINE="$machine" bench/host_overhead/run.sh > $OUT/hostbench.log 2>&1
  echo "exit $?"
  cp bench/results/$d-$tag-host-overhead.{md,json,log} $OUT/ 2>/dev/null
  grep -E "_median |ERROR|exited" $OUT/hostbench.log
  cat $OUT/$d-$tag-host-overhead.md
}

for phase in "$@"; do
  case $phase in
    build)
      step build
      nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi topo -m | head -4
      cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $OUT/build.log 2>&1 &&
        cmake --build $B -j32 --target flashccl flashccl_cli flashccl_gpu_tests flashccl_local_rank_tests \
          flashccl_passthrough_check flashccl_hierarchy_check >> $OUT/build.log 2>&1 ||
        { tail -40 $OUT/build.log; exit 1; }
      step built ;;
    check)
      step "perf smoke, pass-through"
      FLASHCCL_DISABLE=1 timeout 120 $F perf --quick -t 2 > $OUT/smoke_passthrough.log 2>&1; echo "exit $?"
      tail -5 $OUT/smoke_passthrough.log
      step "perf smoke, flashccl"
      NCCL_DEBUG=WARN FLASHCCL_DEBUG=INFO timeout 120 $F perf --quick -t 2 > $OUT/smoke.log 2>&1; echo "exit $?"
      grep -E "flashccl .* active|armed|disabled|WARN" $OUT/smoke.log | head -10
      grep -E "^ +[0-9]+ " $OUT/smoke.log | head -60
      step "gpu tests"
      timeout 300 $B/tests/gpu/flashccl_gpu_tests --gtest_brief=1 > $OUT/gpu_tests.log 2>&1; echo "exit $?"
      grep -E "FAILED|PASSED|Failure|differs" $OUT/gpu_tests.log | head -30 ;;
    sweep)
      step "perf sweep eager"
      timeout 300 $F perf -t 2 --coll all -d float -o sum -b 8 -e 1G -f 4 -n 10 -w 3 --pairs 3 > $OUT/sweep.log 2>&1; echo "exit $?"
      grep -vE "^#" $OUT/sweep.log | tail -60 ;;
    tests)
      step "gpu tests"
      timeout 240 $B/tests/gpu/flashccl_gpu_tests --gtest_brief=1 > $OUT/gpu_tests.log 2>&1; echo "exit $?"
      grep -E "FAILED|PASSED|Failure|differs" $OUT/gpu_tests.log | head -30 ;;
    tune)
      step "tune: forced algorithms and knobs"
      rows() { grep -E "^ +[0-9]+ +[0-9]+ " "$1" | awk '{print $1, $10, $6, $11, $NF}'  # size, NCCL us, flashccl us, speedup (out of place); }
      perfq() { timeout 100 $F perf -t 2 -n 10 -w 3 --pairs 2 -c 0 "$@" > $OUT/t.log 2>&1; rows $OUT/t.log; }
      {
      for lanes in 32 64; do for chunk in 16K 64K; do
        echo "== twoshot lanes=$lanes minchunk=$chunk"
        FLASHCCL_LANES=$lanes FLASHCCL_MIN_CHUNK_BYTES=$chunk FLASHCCL_ALGO=allreduce:allreduce_twoshot perfq --coll allreduce -b 512K -e 512M -f 4
      done; done
      echo "== oneshot"; FLASHCCL_ALGO=allreduce:allreduce_oneshot perfq --coll allreduce -b 128K -e 4M -f 2
      for ll in 0 8M; do for lanes in 32 64; do
        echo "== direct ll_max=$ll lanes=$lanes"
        FLASHCCL_LL_MAX_BYTES=$ll FLASHCCL_LANES=$lanes FLASHCCL_ALGO=allgather:allgather_direct,reducescatter:reducescatter_direct perfq --coll allgather,reducescatter -b 256K -e 512M -f 4
      done; done
      } 2>&1 | tee $OUT/tune.log ;;
    graph)
      step "graph sweep"
      timeout 200 $F perf -t 2 -n 20 -G 5 --coll all -b 8 -e 64M -f 4 -w 1 --pairs 2 > $OUT/graph.log 2>&1; echo "exit $?"
      grep -E "^ +[0-9]+ +[0-9]+ " $OUT/graph.log ;;
    record)
      # The recorded runs (bench/results/): eager and CUDA-graph sweeps with flashccl, the
      # pass-through sweep, and short runs in processes and grouped modes.
      step "record"
      d=$(date +%F); R=bench/results; mkdir -p $R
      rec() { local what=$1; shift; timeout 200 "$@" --machine "2 x H200 NV18" --json $R/$d-h200x2-$what.json \
                --markdown $R/$d-h200x2-$what.md > $R/$d-h200x2-$what.log 2>&1
              echo "$what exit $?"; }
      rec eager $F perf -t 2 --coll all -d float -o sum -b 8 -e 4G -f 2 -n 10 -w 3 --pairs 3
      rec graph $F perf -t 2 -n 20 -G 5 --coll all -d float -o sum -b 8 -e 256M -f 2 -w 1 --pairs 3
      tar czf $OUT/records.tgz $R/$d-h200x2-* ;;
    record2)
      step "record2"
      d=$(date +%F); R=bench/results; mkdir -p $R
      rec() { local what=$1; shift; timeout 150 "$@" --machine "2 x H200 NV18" --json $R/$d-h200x2-$what.json \
                --markdown $R/$d-h200x2-$what.md > $R/$d-h200x2-$what.log 2>&1
              echo "$what exit $?"; }
      FLASHCCL_DISABLE=1 rec passthrough $F perf -t 2 --coll all -d float -o sum -b 8 -e 4G -f 2 -n 10 -w 3 --pairs 2
      rec procs $F perf --processes 2 --coll all -d float,bfloat16 -o sum -b 8 -e 64M -f 8 -n 10 -w 3 --pairs 2
      rec grouped $F perf --grouped --coll all -d float -o sum -b 8 -e 64M -f 8 -n 10 -w 3 --pairs 2
      rec dtypes $F perf -t 2 --coll all -d all -o all -b 64 -e 4M -f 32 -n 3 -w 1 --pairs 1
      tar czf $OUT/records2.tgz $R/$d-h200x2-{passthrough,procs,grouped,dtypes}.* ;;
    tests2)
      step "gpu tests"
      timeout 150 $B/tests/gpu/flashccl_gpu_tests --gtest_brief=1 --gtest_filter='-*64MB*' > $OUT/gpu_tests.log 2>&1; echo "exit $?"
      timeout 60 $B/tests/gpu/flashccl_gpu_tests --gtest_brief=1 --gtest_filter='*_float_*64MB*:*_bf16_*64MB*:*_int32_*64MB*' >> $OUT/gpu_tests.log 2>&1; echo "exit $?"
      grep -E "FAILED|PASSED|tests ran" $OUT/gpu_tests.log | head -20 ;;
    local)
      step "virtual ranks on one GPU"
      timeout 500 $B/tests/gpu/flashccl_local_rank_tests --gtest_brief=1 > $OUT/local_rank_tests.log 2>&1; echo "exit $?"
      grep -E "FAILED|PASSED|Failure|wrong|hung|tests ran|\[ (builtin|executor) \]" $OUT/local_rank_tests.log | head -100 ;;
    msccl)
      step "msccl: shipped 2-GPU algorithms vs NCCL"
      d=$(date +%F); R=bench/results; mkdir -p $R
      for f in algorithms/*--gpus_2-*.xml; do
        name=$(basename $f .xml); coll=${name%%_*}
        case $coll in allreduce) c=allreduce ;; allgather) c=allgather ;; reducescatter) c=reducescatter ;; esac
        for mode in eager graph; do
          g=""; [ $mode = graph ] && g="-G 10"
          echo "== $name $mode"
          FLASHCCL_ALGO=$f timeout 100 $F perf -t 2 $g --coll $c -d float -o sum -b 64 -e 64M -f 4 -n 5 -w 2 --pairs 2 \
            --machine "2 x H200 NV18" --json $R/tmp-$name-$mode.json > $OUT/t.log 2>&1; echo "exit $?"
          grep -E "^ +[0-9]+ +[0-9]+ " $OUT/t.log | awk '{print $1, $10, $6, $11}'
        done
      done 2>&1 | tee $OUT/msccl.log
      mv $OUT/msccl.log $R/$d-h200x2-msccl.log; rm -f $R/tmp-*.json; cp $R/$d-h200x2-msccl.log $OUT/ ;;
    passthrough)
      # Every NCCL collective and send/recv through the shim in pass-through against the real
      # NCCL, bitwise; the record (markdown) and the full log go to bench/results/ and $OUT.
      step "passthrough check"
      d=$(date +%F); R=bench/results; mkdir -p $R
      P=$R/$d-h200x2-passthrough-collectives
      FLASHCCL_DISABLE=1 NCCL_NVLS_ENABLE=0 timeout 240 $B/tests/gpu/flashccl_passthrough_check \
        --machine "2 x H200 NV18" --markdown $P.md > $P.log 2>&1; echo "exit $?"
      cp $P.md $P.log $OUT/ 2>/dev/null
      grep -vE ": ok$" $P.log | tail -40 ;;
    torch)
      step "torch"
      python3 -m pip install -q --no-index --no-deps --target /tmp/fl dist/*.whl && export PYTHONPATH=/tmp/fl
      MODES=eager,graph timeout 200 bash tests/integration/run_torch_check.sh /tmp/tc > $OUT/torch.log 2>&1; echo "exit $?"
      tail -15 $OUT/torch.log ;;
    ranks1)
      # A carried build has the source tree's absolute paths in it: point it at this copy.
      export LD_LIBRARY_PATH=$PWD/$B/src${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
      export FLASHCCL_TOPO_FILE=$PWD/topologies/hopper-2gpu-nvlink.xml FLASHCCL_ALGO_DIR=$PWD/algorithms
      step "rank tests: 2 processes on one GPU"
      tests/gpu/run_rank_tests.sh -n 2 -t ${RANK_LIMIT:-420} -o $OUT/ranks2 $B/tests/gpu/flashccl_rank_tests \
        --gtest_brief=1 ${RANK_FILTER:+--gtest_filter=$RANK_FILTER} 2>&1 | tee $OUT/ranks2.txt
      grep -hE "^\[ (agreement|xml) \]" $OUT/ranks2/rank*.log | head -20
      step "XML programs: every shipped 2-rank file against NCCL, 2 processes on one GPU"
      for f in algorithms/*--gpus_2-*.xml; do
        echo "== $(basename $f)"
        FLASHCCL_ALGO=$PWD/$f tests/gpu/run_rank_tests.sh -n 2 -t 120 -o $OUT/xml/$(basename $f .xml) \
          $B/tests/gpu/flashccl_rank_tests --gtest_brief=1 --gtest_filter='RankXmlProgram.*' | grep -vE "^rank 1"
        grep -h "^\[ xml \]" $OUT/xml/$(basename $f .xml)/rank0.log
      done 2>&1 | tee $OUT/xml.txt
      step "pass-through check, one GPU, processes"
      FLASHCCL_DISABLE=1 timeout 300 $B/tests/gpu/flashccl_passthrough_check --one-gpu --machine "1 x H200, 2 processes" \
        --markdown $OUT/passthrough-1gpu.md > $OUT/passthrough-1gpu.log 2>&1; echo "exit $?"
      grep -vE ": ok$" $OUT/passthrough-1gpu.log | tail -15
      step "flashccl's kernels through the same check, one GPU, processes"
      timeout 300 $B/tests/gpu/flashccl_passthrough_check --one-gpu --machine "1 x H200, 2 processes" \
        --markdown $OUT/kernels-1gpu.md > $OUT/kernels-1gpu.log 2>&1; echo "exit $?"
      grep -vE ": ok$" $OUT/kernels-1gpu.log | tail -15 ;;
    hierarchy)
      # Dozens of logs (one per rank and scenario): kept outside $OUT, which brings back few
      # files, and brought back as one archive beside the record.
      step "hierarchy check (one GPU, processes standing for nodes)"
      H=/tmp/flashccl-hierarchy; mkdir -p bench/results
      tests/gpu/hierarchy_check.sh $H --build-dir $B ${HIERARCHY_ARGS:-}; echo "exit $?"
      cp $H/*-h200x1-hierarchy.md bench/results/ 2>/dev/null; cp $H/*-h200x1-hierarchy.md $OUT/ 2>/dev/null
      tar czf $OUT/hierarchy-logs.tgz -C /tmp flashccl-hierarchy
      grep -hE "^FAIL|^(PASS|FAIL) (setup|2x|uneven|disagreement)" $H/*.log | head -40 ;;
    hostbench) hostbench h200x2 "2 x H200 NV18" ;;
    hostbench1) hostbench h200x1 "1 x H200, virtual ranks (2 ranks on one GPU)" ;;
    *) echo "unknown phase $phase"; exit 2 ;;
  esac
done
