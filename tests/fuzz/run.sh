#!/usr/bin/env bash
# Builds the fuzz harnesses (tests/fuzz/CMakeLists.txt, clang with ASan+UBSan) and runs each for
# a bounded time on its checked-in corpus and dictionary. Any crash, sanitizer report, leak,
# input slower than 30 s or allocation over 2 GiB fails its target and the script (exit 1).
#
#   tests/fuzz/run.sh [--seconds N] [--jobs J] [--record PREFIX] [TARGET...]
#
# --seconds: per target (default 30, what CI runs); --jobs: targets at a time (default 2);
# --record PREFIX: also write PREFIX.md and PREFIX.json (execs, coverage, result per target, the
# commit). New inputs go to a scratch corpus, never into the checked-in one. FUZZ_BUILD_DIR
# (default build-fuzz) is the build folder; CXX_FUZZ (default clang++-14) the compiler.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
seconds=30
jobs=2
record=""
targets=()
while (($#)); do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --record) record=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
all=(msccl_xml_fuzz topology_file_fuzz net_wire_fuzz tuner_table_fuzz environment_fuzz
     trace_frames_fuzz trace_dumps_fuzz side_channel_server_fuzz node_board_fuzz)
((${#targets[@]})) || targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "run.sh: no fuzz target $t (${all[*]})" >&2; exit 2; }
done

build=${FUZZ_BUILD_DIR:-build-fuzz}
cxx=${CXX_FUZZ:-clang++-14}
cc=${cxx/clang++/clang}
command -v "$cxx" >/dev/null || { echo "run.sh: $cxx not found (apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 2; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S tests/fuzz -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" "${launcher[@]}" >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"

# The commit the harnesses were built from, taken before they run (a record names what was run).
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=""
git diff --quiet HEAD -- src plugins tools tests/fuzz 2>/dev/null || dirty=" (with uncommitted changes)"
out=$(mktemp -d /tmp/flashccl-fuzz.XXXXXX)
echo "fuzz: ${#targets[@]} targets, ${seconds} s each, ${jobs} at a time; logs and crashes in $out"
run_one() {
  local t=$1
  mkdir -p "$out/$t.corpus"
  local rc=0
  "$build/$t" "$out/$t.corpus" "tests/fuzz/corpus/$t" -dict="tests/fuzz/dict/$t.dict" \
      -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$out/$t-" >"$out/$t.log" 2>&1 || rc=$?
  echo "$rc" >"$out/$t.rc"
}
running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if ((running >= jobs)); then wait -n || true; running=$((running - 1)); fi
done
wait

failed=0
rows=()
for t in "${targets[@]}"; do
  rc=$(cat "$out/$t.rc")
  done_line=$(grep -E '^#[0-9]+\s+DONE' "$out/$t.log" | tail -1 || true)
  [[ -n $done_line ]] || done_line=$(grep -E '^#[0-9]+\s' "$out/$t.log" | tail -1 || true)
  execs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$out/$t.log" | awk '{print $2}' | tail -1 || true)
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$done_line")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$done_line")
  corp=$(sed -nE 's/.* corp: ([0-9]+)\/.*/\1/p' <<<"$done_line")
  took=$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$out/$t.log" | awk '{print $5}' | tail -1 || true)
  if [[ $rc == 0 ]]; then
    result=PASS
  else
    result=FAIL
    failed=1
    grep -E 'ERROR|SUMMARY|Test unit written' "$out/$t.log" | head -5 | sed "s/^/  $t: /" || true
  fi
  echo "$result $t: ${execs:-?} execs in ${took:-?} s, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}"
  rows+=("$t|${execs:-0}|${took:-0}|${cov:-0}|${ft:-0}|${corp:-0}|$result")
done

if [[ -n $record ]]; then
  {
    echo "# CPU fuzz run, $(date -u +%Y-%m-%d)"
    echo
    echo "Commit $commit$dirty, \`tests/fuzz/run.sh --seconds $seconds --jobs $jobs\` on $(nproc) CPU cores"
    echo "($(uname -m), $("$cxx" --version | head -1)), libFuzzer with AddressSanitizer and"
    echo "UndefinedBehaviorSanitizer (-fno-sanitize-recover=all), from the checked-in corpora and dictionaries."
    echo
    echo "| target | execs | seconds | coverage (edges) | features | corpus at the end | result |"
    echo "|---|---|---|---|---|---|---|"
    for row in "${rows[@]}"; do echo "| ${row//|/ | } |"; done
    echo
    if ((failed)); then echo "Result: a target FAILED (see above)."; else echo "Result: 0 crashes, 0 sanitizer reports, 0 timeouts, 0 out-of-memory."; fi
  } >"$record.md"
  {
    echo "{\"commit\": \"$commit\", \"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\", \"seconds_per_target\": $seconds,"
    echo " \"jobs\": $jobs, \"cores\": $(nproc), \"sanitizers\": [\"address\", \"undefined\"], \"targets\": ["
    sep=""
    for row in "${rows[@]}"; do
      IFS='|' read -r t e s c f p r <<<"$row"
      echo "  $sep{\"name\": \"$t\", \"execs\": $e, \"seconds\": $s, \"coverage_edges\": $c, \"features\": $f, \"corpus\": $p, \"result\": \"$r\"}"
      sep=","
    done
    echo " ], \"crashes\": $failed}"
  } >"$record.json"
  echo "fuzz: recorded $record.md and $record.json"
fi
((failed == 0)) && echo "fuzz: PASS" || echo "fuzz: FAIL"
exit $failed
