#!/usr/bin/env bash
# nccl-tests' run flags on a real GPU (issue 28): what the CPU tests can only parse.
#
#   BUILD=build tests/gpu/cli_flags_check.sh OUTDIR
#
# On ONE GPU, one rank (-t 1; timings are not checked, only what the flags do):
#   1. check-iters  `perf --quick -t 1 -c 3 -N 2 --output_file OUTDIR/r.json`: exit 0; the record's
#                   results carry cycles 0 and 1 (-N 2) and every result is checked (-c 3);
#   2. cycles-0     `perf --quick -t 1 -N 0 --coll allreduce -e 64K` runs until stopped: still running
#                   after 20 s, with more results than one cycle has in its table (then it is killed);
#   3. plot         `python -m flashccl plot OUTDIR/r.json` draws the fresh schema-2 record (skipped
#                   without matplotlib);
#   4. no-gpu       CUDA_VISIBLE_DEVICES= perf: exit 2, "needs NVIDIA GPUs" and no usage error.
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0). Prints one PASS/FAIL line per check and writes
# them to OUTDIR/summary.txt; exit status 0 when every check passed. About 1 minute.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:?usage: BUILD=build tests/gpu/cli_flags_check.sh OUTDIR}
BUILD=${BUILD:-build}
F=$BUILD/tools/flashccl
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 FLASHCCL_UNMEASURED=1
: > "$OUT/summary.txt"
failed=0
result() {  # name, 0|1, detail
  local line
  if [[ $2 == 0 ]]; then line="PASS $1"; else line="FAIL $1: $3"; failed=1; fi
  echo "$line" | tee -a "$OUT/summary.txt"
}

timeout 120 "$F" perf --quick -t 1 -c 3 -N 2 --output_file "$OUT/r.json" > "$OUT/check-iters.log" 2>&1
rc=$?
verdict=$(python3 - "$OUT/r.json" <<'PY' 2>&1
import json, sys
r = json.load(open(sys.argv[1]))
cycles = sorted({x["cycle"] for x in r["results"]})
unchecked = [x for x in r["results"] if not x["checked"]]
assert r["schema"] == 2, r["schema"]
assert cycles == [0, 1], cycles
assert not unchecked, len(unchecked)
assert r["settings"]["cycles"] == 2
print("ok")
PY
)
[[ $rc == 0 && $verdict == ok ]]; result "check-iters (-c 3 -N 2 --output_file)" $? "exit $rc, $verdict (see check-iters.log)"

timeout 20 "$F" perf --quick -t 1 -N 0 --coll allreduce -e 64K > "$OUT/cycles-0.log" 2>&1
rc=$?
rows=$(grep -cE '^ +[0-9]+ ' "$OUT/cycles-0.log")
# One cycle of -b 8 -e 64K -f 16 is 4 sizes x 2 placements; 124: still running when stopped.
[[ $rc == 124 && $rows -gt 8 ]]; result "cycles-0 (-N 0 runs until stopped)" $? "exit $rc with $rows rows (see cycles-0.log)"

if python3 -c "import matplotlib" 2>/dev/null; then
  FLASHCCL_BUILD_DIR=$BUILD PYTHONPATH=python timeout 120 python3 -m flashccl plot "$OUT/r.json" -o "$OUT/r.png" \
    > "$OUT/plot.log" 2>&1
  rc=$?
  [[ $rc == 0 && -s $OUT/r.png ]]; result "plot of the fresh record" $? "exit $rc (see plot.log)"
else
  echo "SKIP plot: no matplotlib" | tee -a "$OUT/summary.txt"
fi

CUDA_VISIBLE_DEVICES= timeout 60 "$F" perf > "$OUT/no-gpu.log" 2>&1
rc=$?
ok=1
if [[ $rc == 2 ]] && grep -q "needs NVIDIA GPUs" "$OUT/no-gpu.log" && ! grep -q -- "--help)" "$OUT/no-gpu.log"; then ok=0; fi
result "no-gpu (one line, exit 2)" $ok "exit $rc: $(head -c 300 "$OUT/no-gpu.log")"

exit $failed
