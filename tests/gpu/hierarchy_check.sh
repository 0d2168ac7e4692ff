#!/usr/bin/env bash
# Issue 16's check across nodes on ONE GPU: flashccl's algorithms across nodes against NCCL, with
# several processes on the same GPU, each its own NCCL_HOSTID (so NCCL joins them through its
# socket transport, as separate hosts) and a FLASHCCL_NODE_ID that tells flashccl which of them
# form a node (joined through CUDA IPC). Scenarios:
#   2x2              2 nodes x 2 ranks: every type and op, 8 B - 64 MiB, in and out of place, eager
#                    and graph (--matrix), against NCCL, and the algorithm each must run
#   2x2-pipelined    the same layout, every AllReduce through the pipelined algorithm
#                    (FLASHCCL_ALGO=allreduce:allreduce_hier), quick matrix
#   2x2-interleaved  ranks 0,2 on one node and 1,3 on the other: AllReduce across nodes, AllGather
#                    and ReduceScatter left to NCCL (they need ranks numbered node by node)
#   2x1              2 nodes x 1 rank: flashccl stays out (every call NCCL's), results equal
#   uneven           2 + 1 ranks: flashccl stays out on every rank, saying why
#   disagreement     node 0 and node 1 call different collectives that NCCL pairs: every rank must
#                    get ncclInvalidUsage, never success
#
#   tests/gpu/hierarchy_check.sh OUTDIR [--build-dir DIR] [--gpu N] [--matrix quick|standard|full]
#                                       [--scenarios LIST] [--colls LIST] [--timeout S] [--dry-run]
#
# --colls (allreduce,allgather,reducescatter; default all three) narrows the 2x2 and 2x2-interleaved
# scenarios, so a machine that allows ten minutes a command can run one collective's matrix per command.
# --timeout bounds each scenario (default 540 s); a machine that allows ten minutes a command
# runs `--scenarios 2x2` in one command and the other scenarios in another, with the same OUTDIR.
#
# OUTDIR gets per scenario: <scenario>.log (rank 0: one PASS/FAIL line per case), <scenario>.rank<R>.log
# (each rank's stderr: NCCL and flashccl warnings, why a case failed there), <scenario>.md and
# <scenario>.verdict; and <date>-h200x1-hierarchy.md, the record for bench/results/, over every
# scenario OUTDIR holds a verdict for (so separate commands add up to one record). --dry-run prints every rank's
# environment and command instead of running. Exit 0 when every scenario passed, 1 otherwise,
# 2 on bad usage. Timings mean nothing (the processes time-slice the GPU).
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir="$repo/build-gpu"
gpu=0
matrix=standard
scenarios="2x2,2x2-pipelined,2x2-interleaved,2x1,uneven,disagreement"
timeout_s=540
colls=""
dry_run=0
out=""

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }
need_value() { [[ $# -ge 2 && -n $2 ]] || { echo "hierarchy_check: $1 needs a value" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) need_value "$@"; build_dir=$2; shift 2 ;;
    --gpu) need_value "$@"; gpu=$2; shift 2 ;;
    --matrix) need_value "$@"; matrix=$2; shift 2 ;;
    --scenarios) need_value "$@"; scenarios=$2; shift 2 ;;
    --timeout) need_value "$@"; timeout_s=$2; shift 2 ;;
    --colls) need_value "$@"; colls=$2; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "hierarchy_check: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *) [[ -z $out ]] || { echo "hierarchy_check: one OUTDIR only" >&2; exit 2; }; out=$1; shift ;;
  esac
done
[[ -n $out ]] || { echo "hierarchy_check: OUTDIR missing" >&2; usage >&2; exit 2; }
[[ $matrix =~ ^(quick|standard|full)$ ]] || { echo "hierarchy_check: --matrix quick, standard or full" >&2; exit 2; }
[[ $gpu =~ ^[0-9]+$ && $timeout_s =~ ^[0-9]+$ ]] || { echo "hierarchy_check: --gpu and --timeout take numbers" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
check="$build_dir/tests/gpu/flashccl_hierarchy_check"

# scenario -> "node ids, one per rank" and the program's own options.
scenario_nodes() {
  case $1 in
    2x2|2x2-pipelined|disagreement) echo "n0 n0 n1 n1" ;;
    2x2-interleaved) echo "n0 n1 n0 n1" ;;
    2x1) echo "n0 n1" ;;
    uneven) echo "n0 n0 n1" ;;
    *) return 1 ;;
  esac
}
# Fills the array `options` (words may hold spaces).
scenario_options() {
  case $1 in
    2x2) options=(--matrix "$matrix" ${colls:+--colls "$colls"}) ;;
    2x2-pipelined) options=(--matrix quick --colls allreduce --pipelined-allreduce) ;;
    2x2-interleaved) options=(--matrix quick --interleaved ${colls:+--colls "$colls"}) ;;
    2x1) options=(--matrix quick --expect-disabled "one rank on each") ;;
    uneven) options=(--matrix quick --expect-disabled "differ in size") ;;
    disagreement) options=(--disagreement) ;;
  esac
}
scenario_env() {
  [[ $1 == 2x2-pipelined ]] && echo "FLASHCCL_ALGO=allreduce:allreduce_hier"
  return 0
}

IFS=, read -r -a chosen <<< "$scenarios"
for s in "${chosen[@]}"; do
  scenario_nodes "$s" > /dev/null || { echo "hierarchy_check: unknown scenario '$s'" >&2; exit 2; }
done

if [[ $dry_run -eq 0 && -x $check && ! -f $build_dir/CMakeCache.txt ]]; then
  echo "== using the carried $check as it is"
elif [[ $dry_run -eq 0 ]]; then
  echo "== building flashccl_hierarchy_check in $build_dir"
  if ! { [[ -f $build_dir/CMakeCache.txt ]] || cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release \
           -DCMAKE_CUDA_ARCHITECTURES=90; } > "$out/build.log" 2>&1 ||
     ! cmake --build "$build_dir" -j"$(nproc)" --target flashccl flashccl_hierarchy_check >> "$out/build.log" 2>&1; then
    tail -n 30 "$out/build.log"
    echo "FAIL: the check did not build (log: $out/build.log)"
    exit 1
  fi
fi

# Runs one scenario: every rank its own process, rank 0's report on stdout and in <s>.log.
run_scenario() {
  local s=$1 nodes rank=0 pids=() id_file="$out/$s.id" node_ids nranks node_count
  read -r -a node_ids <<< "$(scenario_nodes "$s")"
  nranks=${#node_ids[@]}
  node_count=$(printf '%s\n' "${node_ids[@]}" | sort -u | wc -l)
  local options=()
  scenario_options "$s"
  rm -f "$id_file" "$id_file.partial"
  for node in "${node_ids[@]}"; do
    # FLASHCCL_UNMEASURED=1: one GPU matches no topology file, and the built-in table's rows
    # across nodes are model bands, not measurements (docs/multinode.md, "Selection"), so without
    # it every call would go to NCCL; the check is about the algorithms those rows pick.
    local env=(NCCL_HOSTID="flashccl-hier-$s-$rank" FLASHCCL_NODE_ID="$node" NCCL_SOCKET_IFNAME=lo
               NCCL_NVLS_ENABLE=0 CUDA_VISIBLE_DEVICES="$gpu" NCCL_DEBUG=WARN FLASHCCL_UNMEASURED=1
               $(scenario_env "$s"))
    local args=("$check" --rank "$rank" --nranks "$nranks" --nodes "$node_count" --id-file "$id_file"
                --scenario "$s" --markdown "$out/$s.md" "${options[@]}")
    if [[ $dry_run -eq 1 ]]; then
      echo "$s rank $rank: ${env[*]} $(printf '%q ' "${args[@]}")"
    elif [[ $rank -eq 0 ]]; then
      env "${env[@]}" timeout "$timeout_s" "${args[@]}" 2> "$out/$s.rank$rank.log" | tee "$out/$s.log" &
      pids+=($!)
    else
      env "${env[@]}" timeout "$timeout_s" "${args[@]}" > /dev/null 2> "$out/$s.rank$rank.log" &
      pids+=($!)
    fi
    rank=$((rank + 1))
  done
  local status=0
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  return $status
}

overall=0
for s in "${chosen[@]}"; do
  [[ $dry_run -eq 1 ]] || echo "== scenario $s"
  start=$(date +%s)
  if run_scenario "$s"; then verdict=PASS; else verdict=FAIL; overall=1; fi
  [[ $dry_run -eq 1 ]] && continue
  echo "$verdict $(( $(date +%s) - start ))" > "$out/$s.verdict"
  echo "== $s: $verdict ($(( $(date +%s) - start )) s)"
done
[[ $dry_run -eq 1 ]] && exit 0

# Every scenario this OUTDIR has a verdict for, in the usual order.
recorded=()
for s in 2x2 2x2-pipelined 2x2-interleaved 2x1 uneven disagreement; do
  [[ -f $out/$s.verdict ]] && recorded+=("$s")
done

record="$out/$(date +%F)-h200x1-hierarchy.md"
{
  echo "# Algorithms across nodes on one GPU (issue 16): flashccl against NCCL"
  echo
  echo "- Date: $(date -u '+%F %T UTC')"
  echo "- Machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader -i "$gpu" 2>/dev/null | head -1) (GPU $gpu, every rank on it)"
  echo "- NCCL: $(grep -ho 'NCCL version [^ ]*' "$out"/*.log 2>/dev/null | sort -u | head -1)"
  echo "- Commit: $(git -C "$repo" rev-parse HEAD 2>/dev/null)$(git -C "$repo" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "- Command: tests/gpu/hierarchy_check.sh OUTDIR --matrix $matrix${colls:+ --colls $colls} (scenarios as below)"
  echo "- Each rank a process with its own NCCL_HOSTID (NCCL: sockets on lo), FLASHCCL_NODE_ID per node"
  echo "  (flashccl: CUDA IPC inside a node, NCCL rails between nodes), NCCL_NVLS_ENABLE=0,"
  echo "  FLASHCCL_UNMEASURED=1 (the built-in rows across nodes are model bands, armed only on request). Timings"
  echo "  mean nothing here: the processes time-slice one GPU."
  echo
  echo "| scenario | verdict | seconds |"
  echo "|---|---|---|"
  for s in "${recorded[@]}"; do read -r verdict seconds < "$out/$s.verdict"; echo "| $s | $verdict | $seconds |"; done
  echo
  for s in "${recorded[@]}"; do
    if [[ -f $out/$s.md ]]; then cat "$out/$s.md"; else printf '### %s: FAIL\n\nNo record: rank 0 did not finish (see %s.rank*.log).\n\n' "$s" "$s"; fi
  done
} > "$record"
echo "record: $record"
for s in "${chosen[@]}"; do echo "$(cut -d' ' -f1 "$out/$s.verdict") $s"; done
exit $overall
