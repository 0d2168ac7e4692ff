#!/usr/bin/env bash
# `flashccl doctor` for real on a GPU machine (issue 18). Usage: tests/gpu/doctor_check.sh OUTDIR
#
# Builds the flashccl command when $FLASHCCL (default build-gpu/tools/flashccl) is missing, then:
#   1. doctor --full: every family, the report as OUTDIR/doctor.{txt,json,md}, its progress and
#      warnings in doctor.log (bench/results/<date>-<tag>-doctor.md is doctor.md plus
#      summary.md's header);
#   2. CUDA_VISIBLE_DEVICES= : no GPU for CUDA -> the no-GPU message and exit status 2;
#   3. CUDA_VISIBLE_DEVICES=<GPU count>,0 : an index past the last GPU hides the ones after it -> FAIL, exit 1;
#   4. --checks environment,gpu : the read-only NVML checks alone (no GPU load; 0 or 1, as the
#      machine is).
# OUTDIR/summary.md lists each run with its command and exit status, and whether that status is
# the one expected; known-answers.txt holds runs 2-4's output. At most 7 files (build.log only
# when it builds), within what the device tool brings back. Read-only NVML queries only; NVLink multicast stays off (docs/design.md, "No NVLink multicast").
#
# Doctor's build needs the CLI11 and nlohmann/json headers. A GPU machine without a package
# registry gets them carried: here, `mkdir -p .deps/include && cp -r /usr/include/CLI
# /usr/include/nlohmann .deps/include/` (an ignored folder), carry `.deps`, and run there with
# DOCTOR_HEADERS=$PWD/.deps/include.
set -uo pipefail
OUT=${1:?usage: tests/gpu/doctor_check.sh OUTDIR}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
B=${BUILD:-build-gpu}
F=${FLASHCCL:-$B/tools/flashccl}

if [ ! -x "$F" ]; then
  echo "=== $(date +%T) building $F"
  { cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
          ${DOCTOR_HEADERS:+-DCMAKE_INCLUDE_PATH=$DOCTOR_HEADERS} &&
    cmake --build "$B" -j"$(nproc)" --target flashccl_cli; } > "$OUT/build.log" 2>&1 ||
    { tail -40 "$OUT/build.log"; exit 1; }
fi
if ! "$F" doctor --help > /dev/null 2>&1; then
  grep -A2 "flashccl doctor is not built" "$OUT/build.log" 2>/dev/null
  echo "$F has no doctor: give the build the CLI11 and nlohmann/json headers (see the top of $0)"
  exit 1
fi

failures=0
summary="$OUT/summary.md"
{
  echo "# flashccl doctor on $(hostname), $(date '+%F %T')"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| GPUs | $(nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader 2>/dev/null | paste -sd ';' -) |"
  echo "| commit | $(git rev-parse --short HEAD 2>/dev/null || echo unknown) |"
  echo "| binary | $F |"
  echo
  echo "| run | command | exit | expected | |"
  echo "|---|---|---:|---:|---|"
} > "$summary"

# run NAME EXPECTED_EXITS ENV... -- ARGS...   (EXPECTED_EXITS: one status, or several as "0,1")
run() {
  local name=$1 expected=$2; shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  echo "=== $(date +%T) $name: ${envs[*]} $F doctor $*"
  local start=$SECONDS
  echo "=== $name: ${envs[*]} flashccl doctor $*" >> "$KNOWN"
  env "${envs[@]}" "$F" doctor "$@" >> "$KNOWN" 2>&1
  local status=$?
  echo "=== $name: exit $status" >> "$KNOWN"
  local verdict=ok
  [[ ",$expected," == *",$status,"* ]] || { verdict="UNEXPECTED"; failures=$((failures + 1)); }
  echo "exit $status (expected $expected, $((SECONDS - start)) s)"
  local shown="flashccl doctor $*"
  [ ${#envs[@]} -eq 0 ] || shown="${envs[*]} $shown"
  echo "| $name | \`$shown\` | $status | $expected | $verdict |" >> "$summary"
}

# 1. The whole doctor. Exit 0 or 1 are both honest outcomes on a real machine (1 = some FAIL,
#    shown in the report); anything else is not.
echo "=== $(date +%T) full: $F doctor --full"
start=$SECONDS
"$F" doctor --full --json "$OUT/doctor.json" --markdown "$OUT/doctor.md" > "$OUT/doctor.txt" 2> "$OUT/doctor.log"
status=$?
echo "exit $status ($((SECONDS - start)) s)"
cat "$OUT/doctor.txt"
verdict=ok
[ "$status" -le 1 ] || { verdict="UNEXPECTED"; failures=$((failures + 1)); }
echo "| full | \`flashccl doctor --full --json doctor.json --markdown doctor.md\` | $status | 0 or 1 | $verdict |" >> "$summary"

# 2-4. Known answers, their output in known-answers.txt.
KNOWN="$OUT/known-answers.txt"
: > "$KNOWN"
run no-gpu 2 CUDA_VISIBLE_DEVICES= -- --quick
# The first index past the last GPU (5 would exist on an 8-GPU machine).
past=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
run hidden-gpu 1 CUDA_VISIBLE_DEVICES="$past,0" -- --quick --checks environment
run nvml-only 0,1 -- --checks environment,gpu
grep -q "no GPU found" "$KNOWN" || { echo "no-gpu: the message is missing"; failures=$((failures + 1)); }
grep -q "^FAIL  CUDA_VISIBLE_DEVICES .*=$past,0 ->" "$KNOWN" || { echo "hidden-gpu: no FAIL on CUDA_VISIBLE_DEVICES"; failures=$((failures + 1)); }

{ echo; echo "Full report: doctor.md (table: doctor.txt, progress: doctor.log, every field: doctor.json);"
  echo "runs 2-4: known-answers.txt."; } >> "$summary"
echo "=== $failures unexpected result(s); summary in $summary"
exit $((failures > 0))
