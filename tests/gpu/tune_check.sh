#!/usr/bin/env bash
# `flashccl tune` for real on a machine with ONE GPU (issue 17, item 3):
#
#   tests/gpu/tune_check.sh [--dry-run] OUTDIR
#
# Two processes share GPU 0, each one rank of a "launched" job (RANK / WORLD_SIZE / LOCAL_RANK=0,
# as torchrun sets them) with its own NCCL_HOSTID, so NCCL takes them for two nodes and joins them
# over its socket transport on lo (NCCL_SOCKET_IFNAME=lo); they meet at NCCL_COMM_ID on 127.0.0.1.
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0; docs/design.md, "No NVLink multicast").
#
# TIMINGS ON ONE SHARED GPU MEAN NOTHING: the two ranks time-slice the GPU and talk through the
# host. The sweep below picks with --pick fastest (the fastest forced choice at every size) so that
# the table has rows to check; what is checked is the path, never the numbers:
#   1. sweep     a QUICK `flashccl tune --launched` on both ranks (2 collectives, 3 sizes, 4 forced
#                choices, 2 baseline runs; under 90 s): both exit 0, the table parses and has
#                rows, and tune saw NCCL refuse tree for all-gather (the plugin's WARN);
#   2. verify    `flashccl tune --launched --verify TABLE` on both ranks: NCCL with the tuned table
#                (NCCL_TUNER_PLUGIN + FLASHCCL_TUNER_FILE, NCCL_DEBUG=INFO
#                NCCL_DEBUG_SUBSYS=INIT,TUNING) runs every row's choice at every size of its band;
#   3. log       the same NCCL log read here, without tune's code: the plugin logged each row as
#                applied and NCCL's per-call lines show each row's algorithm and protocol;
#   4. no-gpu    CUDA_VISIBLE_DEVICES= : one line, exit 2;
#   5. bad-input --coll broadcast : one line, exit 2.
# Writes three files into OUTDIR: summary.txt (one PASS/FAIL line per check), table.xml (the tuned
# table) and tune-check.tar.gz (every command's output, tune's record and each perf run's record,
# output and NCCL log). Exit status 0 when every check passed.
#
# The binaries are built elsewhere and carried: BUILD (default build-gpu) holds the library in
# $BUILD/src, the plugin in $BUILD/plugins/tuner and the tool in $BUILD/tools/flashccl, e.g.
#   BUILD=build-carry bash tests/gpu/tune_check.sh /tmp/tune-check
# --dry-run prints the commands instead of running them (tests/unit/tune checks them on CPUs).
set -uo pipefail
cd "$(dirname "$0")/../.."

dry=0
if [[ ${1:-} == --dry-run ]]; then dry=1; shift; fi
OUT=${1:?usage: tests/gpu/tune_check.sh [--dry-run] OUTDIR}
BUILD=${BUILD:-build-gpu}
F=$BUILD/tools/flashccl
PLUGIN=$BUILD/plugins/tuner/libnccl-tuner-flashccl.so
mkdir -p "$OUT"
W=$(mktemp -d "${TMPDIR:-/tmp}/tune-check.XXXXXX")
trap 'rm -rf "$W"' EXIT
SUMMARY=$OUT/summary.txt
failures=0

# Absolute for the loader, whether BUILD is relative (to the checkout) or absolute.
lib_dir=$BUILD/src
[[ $lib_dir = /* ]] || lib_dir=$PWD/$lib_dir
export LD_LIBRARY_PATH=$lib_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FLASHCCL_TOPO_FILE=$PWD/topologies/hopper-2gpu-nvlink.xml
export NCCL_NVLS_ENABLE=0 NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1
# What both sweeps measure: the verify run must cover the sweep's sizes.
SIZES=(-b 64K -e 1M -f 4 --coll allreduce,allgather)

source tests/gpu/launched_pair.sh  # check, free_port, pair_run

# ranks NAME -- ARGS... : `flashccl tune ARGS` as ranks 0 and 1 of one launched job on GPU 0.
# Each rank's output goes to $W/NAME.rankR.log; sets status0 / status1.
ranks() {
  local name=$1; shift 2
  pair_run "$name" 150 flashccl-tune-check "" "" -- "$F" tune --launched "$@" --plugin "$PLUGIN" \
    --workdir "$W/$name-rank{rank}"
}

summary_header "# flashccl tune on one GPU, two processes ($(date '+%F %T'), $(hostname))" \
  "# TIMINGS ON ONE SHARED GPU MEAN NOTHING: the ranks time-slice the GPU and talk over sockets;" \
  "# the table is picked with --pick fastest to have rows to check. The path is checked, not the numbers."
need_binaries

# 1. The quick sweep.
start=$SECONDS
ranks sweep -- "${SIZES[@]}" --candidates ring:ll,ring:simple:2,tree:ll,tree:simple --flashccl-algos none \
  --baseline-runs 2 -n 5 -w 2 --pairs 3 -T 60 --pick fastest --output "$W/table.xml" -J "$W/tune.json"
if ((!dry)); then
  seconds=$((SECONDS - start))
  cat "$W/sweep.rank0.log"
  if [[ $status0 -eq 0 && $status1 -eq 0 ]]; then
    check PASS sweep "both ranks exit 0 in ${seconds} s"
  else
    check FAIL sweep "exit statuses $status0 / $status1 (outputs in tune-check.tar.gz: sweep.rank0.log, sweep.rank1.log)"
  fi
  ((seconds < 90)) || check FAIL sweep-time "${seconds} s, not under 90 s"
  rows=$(grep -c "<row " "$W/table.xml" 2>/dev/null || true)
  if [[ ${rows:-0} -gt 0 ]]; then
    check PASS table "$rows rows in the table (parsed by the plugin's parser before tune wrote it)"
  else
    check FAIL table "no table or no row in $W/table.xml"
  fi
  if python3 -c 'import json, sys
record = json.load(open(sys.argv[1]))
refused = {c["collective"]: c["refused"] for c in record["collectives"]}
sys.exit(0 if "tree/ll" in refused.get("allgather", []) and not refused.get("allreduce") else 1)' "$W/tune.json" 2>/dev/null; then
    check PASS refusal "NCCL refused tree for all-gather and tune dropped those times (allreduce: none refused)"
  else
    check FAIL refusal "tune.json does not show tree/ll refused for allgather only"
  fi
  cp "$W/table.xml" "$OUT/table.xml" 2>/dev/null
fi

# 2. NCCL with the tuned table, checked by tune.
ranks verify -- "${SIZES[@]}" -T 60 --verify "$W/table.xml"
if ((!dry)); then
  cat "$W/verify.rank0.log"
  if [[ $status0 -eq 0 && $status1 -eq 0 ]] && grep -q "^# PASS: NCCL applies the table" "$W/verify.rank0.log"; then
    check PASS verify "NCCL ran every row's choice at every size of its band ($(grep -c '^PASS  ' "$W/verify.rank0.log") rows)"
  else
    check FAIL verify "exit statuses $status0 / $status1; see verify.rank0.log"
  fi

  # 3. The same log, read here: each row applied by the plugin, and NCCL's lines show its choice.
  log=$(cat "$W"/verify-rank0/*/nccl.*.log 2>/dev/null)
  coll="" missing="" rows=0
  while read -r line; do
    [[ $line =~ \<group\ coll=\"([a-z]+)\" ]] && coll=${BASH_REMATCH[1]}
    if [[ $line =~ algorithm=\"([a-z_]+)\"\ protocol=\"([a-z0-9]+)\" ]]; then
      rows=$((rows + 1))
      algo=${BASH_REMATCH[1]^^} proto=${BASH_REMATCH[2]^^}
      func=$([[ $coll == allreduce ]] && echo AllReduce || echo AllGather)
      grep -q "TUNER/flashccl: $coll .* -> ${BASH_REMATCH[1]}/${BASH_REMATCH[2]}" <<< "$log" ||
        missing+=" plugin:$coll:${BASH_REMATCH[1]}/${BASH_REMATCH[2]}"
      grep -q "NCCL INFO $func: [0-9]* Bytes -> Algo $algo proto $proto " <<< "$log" ||
        missing+=" nccl:$func:$algo/$proto"
    fi
  done < "$W/table.xml"
  if [[ -n $log && -z $missing && $rows -gt 0 ]]; then
    check PASS log "NCCL's own log shows the plugin applying each row and NCCL running its algorithm/protocol"
  else
    check FAIL log "not in NCCL's log of the verify run (rows checked: $rows):${missing:- (no log, or no row)}"
  fi
fi

# 4-5. Known answers, without a GPU and with bad input.
if ((dry)); then
  echo "CUDA_VISIBLE_DEVICES= $F tune --plugin $PLUGIN"
  echo "$F tune --coll broadcast --plugin $PLUGIN"
else
  CUDA_VISIBLE_DEVICES= "$F" tune --plugin "$PLUGIN" > "$W/no-gpu.log" 2>&1; s=$?
  if [[ $s -eq 2 ]] && grep -q "^flashccl tune needs NVIDIA GPUs; none found" "$W/no-gpu.log" &&
     [[ $(wc -l < "$W/no-gpu.log") -eq 1 ]]; then
    check PASS no-gpu "one line, exit 2: $(cat "$W/no-gpu.log")"
  else
    check FAIL no-gpu "exit $s: $(head -3 "$W/no-gpu.log")"
  fi
  "$F" tune --coll broadcast --plugin "$PLUGIN" > "$W/bad-input.log" 2>&1; s=$?
  if [[ $s -eq 2 && $(wc -l < "$W/bad-input.log") -eq 1 ]] && grep -q "'broadcast' is not one of" "$W/bad-input.log"; then
    check PASS bad-input "one line, exit 2"
  else
    check FAIL bad-input "exit $s: $(head -3 "$W/bad-input.log")"
  fi
fi

if ((dry)); then exit 0; fi
echo "# $failures check(s) failed" | tee -a "$SUMMARY"
tar -czf "$OUT/tune-check.tar.gz" -C "$W" . 2>/dev/null
exit $((failures > 0))
