#!/usr/bin/env bash
# `flashccl tune --install` end to end on a machine with ONE GPU (issue 24):
#
#   BUILD=build tests/gpu/calibrate_check.sh [--dry-run] OUTDIR
#
# Two processes share GPU 0 as ranks 0 and 1 of a launched job (RANK / WORLD_SIZE / LOCAL_RANK=0),
# each with its own NCCL_HOSTID (so NCCL accepts two ranks on one device and joins them over lo);
# flashccl's kernels reach the peer through CUDA IPC. NVLink multicast stays off.
#
# TIMINGS ON ONE SHARED GPU MEAN NOTHING. The sweep picks with --pick fastest (TEST ONLY: every
# size's fastest flashccl algorithm, whatever NCCL measured; docs/tuner.md) so that the installed
# table has flashccl rows to check; what is checked is consistency between the table written and
# what a later job runs, whatever the picks:
#   1. install   `flashccl tune --launched --install` (XDG_CACHE_HOME=$W/cache, so the table goes to
#                $W/cache/flashccl/): both ranks exit 0; the table exists, parses as XML and has at
#                least one row naming a flashccl algorithm;
#   2. found     an unchanged job (`flashccl perf --launched`, no FLASHCCL_TOPO_FILE, no
#                FLASHCCL_UNMEASURED) logs "selection table for 2 ranks ...: <the installed table>
#                (...; calibrated on this machine ...)";
#   3. ran       at every size, datatype (fp32, bf16) and placement the job ran exactly the algorithm
#                the table's first matching row names (perf's record: flashcclLastAlgorithm on rank
#                0; a row saying nccl must show NCCL);
#   4. refused   the same job with only a doctored copy of the table (another NCCL version) in its
#                cache: the INFO line "... is refused, nccl: the table says 0.0.0-doctored, this
#                process has ..." and every call on NCCL (the next table is the built-in one,
#                unmeasured);
#   5. disagree  rank 0 with the table, rank 1 with an empty cache: the WARN naming both tables on
#                each rank, and every call on NCCL.
#   6. verify    `flashccl tune --verify` of the installed table: a verdict for each selection row,
#                none "not applied" (timings, and so PASS or "no longer wins", mean nothing here).
# Writes OUTDIR/summary.txt (one PASS/FAIL line per check), OUTDIR/table.xml, OUTDIR/table.md and
# OUTDIR/calibrate-check.tar.gz (every output). Exit status 0 when every check passed. About 2-3 min.
set -uo pipefail
cd "$(dirname "$0")/../.."

dry=0
if [[ ${1:-} == --dry-run ]]; then dry=1; shift; fi
OUT=${1:?usage: BUILD=build tests/gpu/calibrate_check.sh [--dry-run] OUTDIR}
BUILD=${BUILD:-build}
F=$BUILD/tools/flashccl
PLUGIN=$BUILD/plugins/tuner/libnccl-tuner-flashccl.so
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/calibrate-check.XXXXXX")
trap 'rm -rf "$W"' EXIT
SUMMARY=$OUT/summary.txt
failures=0

lib_dir=$BUILD/src
[[ $lib_dir = /* ]] || lib_dir=$PWD/$lib_dir
export LD_LIBRARY_PATH=$lib_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1
# The check is about finding the table by itself: nothing may name one.
unset FLASHCCL_TOPO_FILE FLASHCCL_TABLE_DIR FLASHCCL_TUNER_FILE FLASHCCL_ALGO
SIZES=(-b 64K -e 1M -f 4 --coll allreduce,allgather)

source tests/gpu/launched_pair.sh  # check, free_port, pair_run

# ranks NAME CACHE0 CACHE1 LIMIT -- COMMAND...: COMMAND as ranks 0 and 1 of one launched job on GPU
# 0, rank r with XDG_CACHE_HOME=CACHEr; output in $W/NAME.rankR.log; sets status0 / status1.
ranks() {
  local name=$1 cache0=$2 cache1=$3 limit=$4; shift 5
  pair_run "$name" "$limit" flashccl-calibrate-check "XDG_CACHE_HOME=$cache0" "XDG_CACHE_HOME=$cache1" -- "$@"
}

# job NAME CACHE0 CACHE1: the unchanged job, recording what ran at every size into $W/NAME.json.
job() {
  ranks "$1" "$2" "$3" 90 -- env -u FLASHCCL_UNMEASURED NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT FLASHCCL_DEBUG=INFO \
    "$F" perf --launched "${SIZES[@]}" -d float,bfloat16 --placement both -n 2 -w 1 -T 60 -J "$W/$1.json"
}

# expect_algorithms TABLE RECORD [nccl]: every size of RECORD ran what TABLE's first matching row
# says (with "nccl": NCCL everywhere). Prints "<checked> <flashccl rows>" or the first mismatch.
expect_algorithms() {
  python3 - "$@" <<'PY'
import json, re, sys
import xml.etree.ElementTree as ET

def size(text):
    m = re.fullmatch(r"(\d+)\s*([KMGT]?)(i?B)?", text.strip())
    return int(m.group(1)) << (10 * " KMGT".index(m.group(2) or " ")) if m else None

table, record = sys.argv[1], sys.argv[2]
everywhere_nccl = len(sys.argv) > 3
rows = []
def walk(node, coll, ranks):
    coll, ranks = node.get("coll", coll), node.get("ranks", ranks)
    for child in node:
        if child.tag == "group":
            walk(child, coll, ranks)
        elif child.tag == "row":
            rows.append((child.get("coll", coll), child.get("ranks", ranks), size(child.get("minBytes", "0")),
                         size(child.get("maxBytes", "0")), child.get("algorithm")))
walk(ET.parse(table).getroot().find("selection"), None, "any")
flashccl_rows = sum(1 for r in rows if r[4] != "nccl")
checked = 0
for result in json.load(open(record))["results"]:
    coll, nbytes = result["collective"], result["size_bytes"]
    expected = "nccl"
    if not everywhere_nccl:
        for c, ranks, lo, hi, algorithm in rows:
            if c == coll and ranks in ("any", "2") and lo <= nbytes and (hi == 0 or nbytes <= hi):
                expected = algorithm
                break
    want = "NCCL" if expected == "nccl" else expected
    if result.get("algorithm") != want:
        print(f"MISMATCH {coll} {nbytes} B {result.get('dtype')} in_place={result.get('in_place')}: "
              f"ran {result.get('algorithm')!r}, the table says {expected}")
        sys.exit(1)
    checked += 1
print(checked, flashccl_rows)
sys.exit(0 if checked > 0 else 1)
PY
}

summary_header "# flashccl tune --install on one GPU, two processes ($(date '+%F %T'), $(hostname))" \
  "# TIMINGS ON ONE SHARED GPU MEAN NOTHING: picked with --pick fastest (test only) to have flashccl rows;" \
  "# checked: the job finds the table and runs what it names; a stale copy is refused."
need_binaries

# 1. Calibrate and install.
start=$SECONDS
mkdir -p "$W/cache" "$W/doctored" "$W/empty"
ranks install "$W/cache" "$W/cache" 240 -- "$F" tune --launched "${SIZES[@]}" --candidates ring:ll \
  --flashccl-algos builtin --baseline-runs 2 -n 5 -w 2 --pairs 3 -T 60 --pick fastest --no-after \
  --install --plugin "$PLUGIN" --output "$W/tuning.xml" -J "$W/tune.json"
# verify TABLE: `flashccl tune --verify` re-measures the table's selection rows (rank 0 reports).
verify() {
  ranks verify "$W/cache" "$W/cache" 150 -- "$F" tune --launched "${SIZES[@]}" -n 2 -w 1 --pairs 2 -T 60 --verify "$1"
}

if ((dry)); then
  job found "$W/cache" "$W/cache"; job refused "$W/doctored" "$W/doctored"; job disagree "$W/cache" "$W/empty"
  verify TABLE
  exit 0
fi
table=$(ls "$W"/cache/flashccl/*.xml 2>/dev/null | head -1)
cat "$W/install.rank0.log"
if [[ $status0 -eq 0 && $status1 -eq 0 && -n $table ]]; then
  check PASS install "both ranks exit 0 in $((SECONDS - start)) s; installed $(basename "$table")"
else
  check FAIL install "exit statuses $status0 / $status1, table '${table}' (install.rank0.log)"
fi
cp "$table" "$OUT/table.xml" 2>/dev/null; cp "${table%.xml}.md" "$OUT/table.md" 2>/dev/null
name=$(basename "${table:-none.xml}" .xml)

# 2-3. The unchanged job finds it and runs what it names.
job found "$W/cache" "$W/cache"
if [[ $status0 -eq 0 && $status1 -eq 0 ]] &&
   grep -q "selection table for 2 ranks on 1 node(s): $name (.*calibrated on this machine" "$W/found.rank0.log"; then
  check PASS found "$(grep -o "selection table for 2 ranks on 1 node(s): $name ([^;]*" "$W/found.rank0.log" | head -1)"
else
  check FAIL found "exit $status0 / $status1; no INFO line naming $name (found.rank0.log)"
fi
if result=$(expect_algorithms "$table" "$W/found.json"); then
  read -r checked flashccl_rows <<< "$result"
  if ((flashccl_rows > 0)); then
    check PASS ran "$checked results ran exactly what the table names ($flashccl_rows flashccl rows)"
  else
    check FAIL ran "the table has no flashccl row (--pick fastest should have given some): nothing to check"
  fi
else
  check FAIL ran "${result:-no record}"
fi

# 4. A doctored copy (another NCCL version) is refused; the next table (built-in, unmeasured) keeps NCCL.
mkdir -p "$W/doctored/flashccl"
sed -e 's/ nccl="[^"]*"/ nccl="0.0.0-doctored"/' "$table" > "$W/doctored/flashccl/$name.xml"
job refused "$W/doctored" "$W/doctored"
if grep -q "calibrated table $name (.*) is refused, nccl: the table says 0.0.0-doctored, this process has .*re-run: flashccl tune" \
     "$W/refused.rank0.log" && result=$(expect_algorithms "$table" "$W/refused.json" nccl); then
  check PASS refused "$(grep -o "is refused, nccl: the table says 0.0.0-doctored, this process has [0-9.]*" "$W/refused.rank0.log" | head -1); every call on NCCL"
else
  check FAIL refused "no refusal INFO line, or a call ran flashccl: ${result:-} (refused.rank0.log)"
fi

# 5. Ranks that found different tables stay on NCCL, with the WARN naming both.
job disagree "$W/cache" "$W/empty"
if grep -q "rank 1 selects from the table 'built-in' .* but rank 0 from '$name'" "$W/disagree.rank0.log" &&
   grep -q "rank 1 selects from the table 'built-in' .* but rank 0 from '$name'" "$W/disagree.rank1.log" &&
   result=$(expect_algorithms "$table" "$W/disagree.json" nccl); then
  check PASS disagree "both ranks WARN naming both tables; every call on NCCL"
else
  check FAIL disagree "no WARN naming both tables on both ranks, or a call ran flashccl: ${result:-} (disagree.rank*.log)"
fi

# 6. `tune --verify` re-measures the installed table's selection rows: a verdict line for every
# row, none "not applied" or with wrong results (which algorithm runs is decided by the table;
# whether it still wins is timing, which means nothing on one shared GPU), exit 0 or 1.
verify "$table"
selection_row='  [^ ]+ (allreduce|allgather|reducescatter) '  # NCCL's <tuning> rows say ring/ll etc. there
rows=$(grep -cE "^(PASS|FAIL|SKIP)$selection_row" "$W/verify.rank0.log")
if [[ $status0 -le 1 && $status1 -le 1 ]] && ((rows > 0 && rows >= ${flashccl_rows:-1})) &&
   ! grep -qE "not applied|wrong results" "$W/verify.rank0.log" &&
   grep -q "^# \(PASS\|FAIL\): flashccl's selection rows" "$W/verify.rank0.log"; then
  check PASS verify "$rows selection rows re-measured, each ran the algorithm it names ($(grep -cE "^PASS$selection_row" "$W/verify.rank0.log") still win on this shared GPU; exit $status0)"
else
  check FAIL verify "exit $status0 / $status1, $rows row verdicts (verify.rank0.log)"
fi

echo "# $failures check(s) failed" | tee -a "$SUMMARY"
tar -czf "$OUT/calibrate-check.tar.gz" -C "$W" . 2>/dev/null
exit $((failures > 0))
