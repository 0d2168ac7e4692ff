#!/usr/bin/env bash
# The flashccl perf runs we record on the 2 x H200 machine (NV18, one host). Each run writes
#   bench/results/<date>-h200x2-<what>.md / .json  (+ .log, the terminal output)
# where <date> is `date +%F`. Commit the .md and .json of the runs that matter; a picture comes from
# the JSON: python -m flashccl plot bench/results/<date>-h200x2-<what>.json (writes the .png beside it).
#
# usage: bench/run_h200x2.sh [smoke|passthrough|eager|graph|procs|grouped|all]...   (default: all)
#   FLASHCCL=/path/to/flashccl   the command (default: build/tools/flashccl)
#   MACHINE="..."                how the reports name the machine
#
# Rough GPU time: smoke 15 s, passthrough 1 min, eager 2 min, graph 1 min, procs and grouped 20 s
# each (most of it NCCL communicator set-up and the 1-4 GiB sizes).
set -uo pipefail

# NVLink multicast can take the shared host's GPUs out of service: never on (docs/design.md, "No NVLink multicast").
export NCCL_NVLS_ENABLE=0

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FLASHCCL=${FLASHCCL:-$root/build/tools/flashccl}
MACHINE=${MACHINE:-"2 x H200 NV18 ($(hostname))"}
results=$root/bench/results
date=$(date +%F)

if [[ ! -x $FLASHCCL ]]; then
  echo "run_h200x2.sh: $FLASHCCL is not there; build it (cmake --build build --target flashccl_cli)" \
       "or set FLASHCCL" >&2
  exit 2
fi

for what in "${@:-all}"; do
  case $what in
    smoke|passthrough|eager|graph|procs|grouped|all) ;;
    *) echo "run_h200x2.sh: unknown run '$what' (smoke passthrough eager graph procs grouped all)" >&2
       exit 2 ;;
  esac
done

mkdir -p "$results"
failed=()
# run WHAT [ENV=VALUE ...] -- PERF-ARGS...
run() {
  local what=$1; shift
  local env=()
  while [[ $1 != -- ]]; do env+=("$1"); shift; done
  shift
  local base=$results/$date-h200x2-$what
  local command=(env ${env[@]+"${env[@]}"} "$FLASHCCL" perf "$@" --machine "$MACHINE"
                 --json "$base.json" --markdown "$base.md")
  echo "=== $what: ${env[*]+${env[*]} }$FLASHCCL perf $*"
  "${command[@]}" 2>&1 | tee "$base.log"
  local status=${PIPESTATUS[0]}
  # The markdown's command line shows perf's flags; the environment that set the mode goes with it.
  if [[ -f $base.md && ${#env[@]} -gt 0 ]]; then
    printf '\nRun with: `%s bench/run_h200x2.sh %s` (environment: %s)\n' \
      "NCCL_NVLS_ENABLE=0" "$what" "${env[*]}" >> "$base.md"
  fi
  [[ $status -eq 0 ]] || failed+=("$what (exit $status)")
}

sweep=(-b 8 -e 4G -f 2 -n 20 -w 5 --pairs 5)

for what in "${@:-all}"; do
  case $what in
    smoke|all)
      # The first thing to run on a new build: every collective, in and out of place, 8 B - 1 MiB.
      run smoke -- --quick -t 2 ;;&
    passthrough|all)
      # flashccl forwards everything: speedup must be 1.00 within noise and #wrong 0; the NCCL
      # columns are this machine's NCCL baseline for the other records.
      run passthrough FLASHCCL_DISABLE=1 -- -t 2 --coll all \
        -d float -o sum "${sweep[@]}" ;;&
    eager|all)
      run eager -- -t 2 --coll all -d float -o sum \
        "${sweep[@]}" ;;&
    graph|all)
      # A CUDA graph of 20 iterations, replayed 5 times per block (100 operations), 8 B - 256 MiB.
      run graph -- -t 2 -n 20 -G 5 --coll all -d float -o sum \
        -b 8 -e 256M -f 2 -w 1 --pairs 5 ;;&
    procs|all)
      run procs -- --processes 2 --coll all -d float,bfloat16 -o sum \
        -b 8 -e 64M -f 4 -n 20 -w 5 --pairs 3 ;;&
    grouped|all)
      run grouped -- --grouped --coll all -d float -o sum \
        -b 8 -e 64M -f 4 -n 20 -w 5 --pairs 3 ;;&
  esac
done

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "run_h200x2.sh: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "run_h200x2.sh: all runs passed; results in $results/$date-h200x2-*"
