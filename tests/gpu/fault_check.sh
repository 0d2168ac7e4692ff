#!/usr/bin/env bash
# Issue 14 on ONE GPU, once the runtime is wired to src/trace: processes that each get their own
# NCCL_HOSTID share GPU 0 (NCCL joins them over its socket transport on lo, our kernels reach
# each other through CUDA IPC). In each job one rank misbehaves at call $AT:
#   sleep       sleeps instead of calling AllReduce           -> "has not called AllReduce seq ..."
#   sleep-report  the same with FLASHCCL_HANG_ACTION=report: the verdict, and nobody is aborted
#   kill        is killed with SIGKILL                         -> "unreachable since ... (process gone"
#   other       calls AllGather where the others AllReduce    -> "called AllGather(...) where ..."
#               (issue 12's call agreement may stop it first: its WARN names both calls; accepted)
#   hold        its stream is held by a kernel that never ends -> "...'s kernel has not started"
#   hold-nccl   the same on NCCL's kernels (FLASHCCL_ALGO=nccl, FLASHCCL_TRACE=full: CUDA events)
#   torch-report, torch-abort   a torchrun job (tests/gpu/fault_torch.py) whose rank 1 stops calling
#   pauses      no fault: PAUSE_CALLS (10000) calls of changing sizes, rank 1 pausing PAUSE_MS (2000)
#               after every PAUSE_EVERY-th (100), FLASHCCL_HANG_TIMEOUT=PAUSE_TIMEOUT (5) -> no alarm
# Passing means: every rank that can (all but a killed one) prints the verdict within
# FLASHCCL_HANG_TIMEOUT + 10 s of the fault, and with FLASHCCL_HANG_ACTION=abort every surviving
# process exits with an error within 30 s of its verdict (torchrun: the job ends with an error);
# for `pauses`: every rank finishes its calls (exit 0) and no log holds a hang verdict.
#
# usage: tests/gpu/fault_check.sh OUTDIR [SCENARIO...]      (default: every scenario)
#   BUILD=dir     build with libflashccl.so, flashccl_fault_rank, tools/flashccl (default build-gpu)
#   NRANKS=n      processes per job (default 3)      TIMEOUT=s  FLASHCCL_HANG_TIMEOUT (default 20)
#   PYTHON=exe    Python with torch, for torchrun (default python3)
#   RANK_BIN, LIB, TOOL  the rank program, the preloaded library ("" for none) and the flashccl
#                 tool, when not those of BUILD (the CPU test runs this script on fake ranks)
# Writes OUTDIR/summary.md (one row per scenario) and OUTDIR/<scenario>/: every rank's log, the
# dumps, `flashccl trace` of the dumps (trace.txt). Exit status 0 when every scenario passed.
set -uo pipefail
# docs/design.md, "No NVLink multicast": never NVLink multicast on the shared hosts (torch's own users of it included).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1

OUTDIR=${1:?usage: tests/gpu/fault_check.sh OUTDIR [SCENARIO...]}
shift
SCENARIOS=("$@")
((${#SCENARIOS[@]})) || SCENARIOS=(sleep sleep-report kill other hold hold-nccl torch-report torch-abort pauses)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$root/build-gpu}
NRANKS=${NRANKS:-3}
TIMEOUT=${TIMEOUT:-20}
PYTHON=${PYTHON:-python3}
LIB=${LIB-$BUILD/src/libflashccl.so}
RANK_BIN=${RANK_BIN:-$BUILD/tests/gpu/flashccl_fault_rank}
TOOL=${TOOL:-$BUILD/tools/flashccl}
CULPRIT=1
AT=200
CALLS=100000
PAUSE_CALLS=${PAUSE_CALLS:-10000}
PAUSE_EVERY=${PAUSE_EVERY:-100}
PAUSE_MS=${PAUSE_MS:-2000}
PAUSE_TIMEOUT=${PAUSE_TIMEOUT:-5}
JOB_ARGS=()  # more options for every rank of the job being started (run_ranks)
VERDICT_WITHIN=$((TIMEOUT + 10))
EXIT_WITHIN=30

for f in ${LIB:+"$LIB"} "$RANK_BIN" "$TOOL"; do
  [[ -f $f ]] || { echo "fault_check.sh: $f is missing (BUILD=$BUILD)" >&2; exit 2; }
done
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
summary=$OUTDIR/summary.md
{
  echo "# Fault localization on one GPU ($(date +%F), $(hostname), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null))"
  echo
  echo "$NRANKS processes on GPU 0, FLASHCCL_HANG_TIMEOUT=$TIMEOUT, culprit rank $CULPRIT at call $AT."
  echo
  echo "| scenario | verdict (as rank 0 printed it) | verdict after the fault (s, per rank) | exits after the verdict (s, per rank) | result |"
  echo "|---|---|---|---|---|"
} > "$summary"
failures=0

now() { date +%s.%N; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a - b }'; }
within() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
pid_of() { sed -n 's/^rank [0-9]* pid \([0-9]*\).*/\1/p' "$1" | head -1; }
fault_time() { sed -n 's/.*fault at \([0-9.]*\):.*/\1/p' "$1" | head -1; }

# Starts one fault_rank process per rank: run_ranks DIR SCENARIO ACTION [VAR=value...]
run_ranks() {
  local dir=$1 scenario=$2 action=$3 r
  shift 3
  for ((r = 0; r < NRANKS; r++)); do
    ( env "$@" NCCL_HOSTID="flashccl-fault-$r" NCCL_SOCKET_IFNAME=lo \
        FLASHCCL_HANG_TIMEOUT="$TIMEOUT" FLASHCCL_HANG_ACTION="$action" FLASHCCL_TRACE_DIR="$dir/dumps" \
        ${LIB:+LD_PRELOAD="$LIB"} "$RANK_BIN" --rank $r --nranks "$NRANKS" --id-file "$dir/id" --calls $CALLS \
        --scenario "$scenario" --culprit $CULPRIT --at $AT --deadline $((TIMEOUT + 120)) "${JOB_ARGS[@]}"
      echo "exit $? at $(now)" ) > "$dir/rank$r.log" 2>&1 &
  done
}

# Polls the logs for at most LIMIT seconds, noting when each rank's log first shows the verdict
# PATTERN (DIR/verdict_at.R): a hang verdict, or for `other` also the call-agreement WARN that
# may come first. Ends early: with abort, once every rank but the culprit has exited; with
# report, 10 s after every rank in PRINTERS has printed its verdict (time enough for an abort
# that must not come).
watch_ranks() {
  local dir=$1 limit=$2 action=$3 printers=$4 pattern=$5 end r exited printed last=0
  end=$(( $(date +%s) + limit ))
  while (( $(date +%s) < end )); do
    exited=0
    printed=0
    for ((r = 0; r < NRANKS; r++)); do
      [[ -e $dir/verdict_at.$r ]] || ! grep -Eq "$pattern" "$dir/rank$r.log" 2>/dev/null || now > "$dir/verdict_at.$r"
      ((r != CULPRIT)) && grep -q "^exit " "$dir/rank$r.log" 2>/dev/null && exited=$((exited + 1))
    done
    for r in $printers; do
      [[ -e $dir/verdict_at.$r ]] && printed=$((printed + 1)) && last=$(cat "$dir/verdict_at.$r")
    done
    [[ $action == abort ]] && ((exited == NRANKS - 1)) && break
    [[ $action == report ]] && ((printed == $(wc -w <<< "$printers"))) &&
      ! within "$(minus "$(now)" "$last")" 10 && break
    sleep 0.25
  done
}

stop_ranks() {
  local dir=$1 r pid
  now > "$dir/stopped_at"
  for ((r = 0; r < NRANKS; r++)); do
    pid=$(pid_of "$dir/rank$r.log")
    [[ -n $pid ]] && kill -9 "$pid" 2>/dev/null
  done
  wait
}

# check_job NAME DIR PATTERN ACTION PRINTERS...: PRINTERS must print PATTERN in time; with abort
# every rank but the culprit must have exited with an error in time.
check_job() {
  local name=$1 dir=$2 pattern=$3 action=$4 r fault at line delays="" exits="" ok=1
  shift 4
  fault=$(fault_time "$dir/rank$CULPRIT.log")
  [[ -n $fault ]] || { ok=0; fault=$(now); }
  for r in "$@"; do
    if [[ -e $dir/verdict_at.$r ]] && grep -Eq "$pattern" "$dir/rank$r.log"; then
      at=$(cat "$dir/verdict_at.$r")
      delays+="$r: $(minus "$at" "$fault") "
      within "$(minus "$at" "$fault")" $VERDICT_WITHIN || ok=0
    else
      delays+="$r: none "
      ok=0
    fi
  done
  for ((r = 0; r < NRANKS; r++)); do
    ((r == CULPRIT)) && continue
    line=$(grep "^exit " "$dir/rank$r.log" | tail -1)
    if [[ $action == abort ]]; then
      if [[ $line =~ ^exit\ ([0-9]+)\ at\ ([0-9.]+) && ${BASH_REMATCH[1]} != 0 && -e $dir/verdict_at.$r ]]; then
        exits+="$r: $(minus "${BASH_REMATCH[2]}" "$(cat "$dir/verdict_at.$r")") "
        within "$(minus "${BASH_REMATCH[2]}" "$(cat "$dir/verdict_at.$r")")" $EXIT_WITHIN || ok=0
      else
        exits+="$r: ${line:-still running} "
        ok=0
      fi
    elif [[ $line =~ ^exit\ [0-9]+\ at\ ([0-9.]+) ]] && ! within "$(cat "$dir/stopped_at")" "${BASH_REMATCH[1]}"; then
      exits+="$r: exited before the check stopped it ($line) "
      ok=0  # report only: nobody may be ended by flashccl
    fi
  done
  [[ $action == abort ]] || exits="(report: none expected) $exits"
  line=$(grep -m1 -E "$pattern" "$dir/rank0.log" | sed 's/.*\]: //; s/|/\\|/g')
  "$TOOL" trace "$dir/dumps" > "$dir/trace.txt" 2>&1
  local result=PASS
  ((ok)) || { result=FAIL; failures=$((failures + 1)); }
  echo "| $name | ${line:-none} | $delays | $exits | $result |" >> "$summary"
  echo "=== $name: $result"
}

fault_job() {
  local name=$1 scenario=$2 action=$3 pattern=$4 printers=$5 dir
  shift 5
  dir=$OUTDIR/$name
  rm -rf "$dir"
  mkdir -p "$dir/dumps"
  chmod 700 "$dir/dumps"
  run_ranks "$dir" "$scenario" "$action" "$@"
  watch_ranks "$dir" $((VERDICT_WITHIN + EXIT_WITHIN + 30)) "$action" "$printers" "$pattern"
  stop_ranks "$dir"
  # shellcheck disable=SC2086
  check_job "$name" "$dir" "$pattern" "$action" $printers
}

torch_job() {
  local name=$1 action=$2 dir pid end fault="" at="" code=""
  dir=$OUTDIR/$name
  rm -rf "$dir"
  mkdir -p "$dir/dumps"
  chmod 700 "$dir/dumps"
  ( FLASHCCL_HANG_TIMEOUT=$TIMEOUT FLASHCCL_HANG_ACTION=$action FLASHCCL_TRACE_DIR=$dir/dumps \
      LD_PRELOAD=${LIB} FAULT_RANK=$CULPRIT FAULT_AT=100 FAULT_STEPS=100000 TORCH_NCCL_ASYNC_ERROR_HANDLING=1 \
      exec setsid "$PYTHON" -m torch.distributed.run --standalone --nproc_per_node=2 --tee 3 \
      "$root/tests/gpu/fault_torch.py" ) > "$dir/torchrun.log" 2>&1 &
  pid=$!
  end=$(( $(date +%s) + 180 ))
  while (( $(date +%s) < end )) && kill -0 $pid 2>/dev/null; do
    [[ -e $dir/verdict_at ]] || ! grep -q "hang verdict" "$dir/torchrun.log" || now > "$dir/verdict_at"
    # Report only: once the verdict is out, give the job 15 s to show it is left alone.
    if [[ $action == report && -e $dir/verdict_at ]] &&
       ! within "$(minus "$(now)" "$(cat "$dir/verdict_at")")" 15; then
      break
    fi
    sleep 0.25
  done
  if kill -0 $pid 2>/dev/null; then
    kill -9 -- -$pid 2>/dev/null
    code="killed by the check"
  else
    wait $pid
    code="exit $?"
  fi
  echo "$code at $(now)" >> "$dir/torchrun.log"
  fault=$(fault_time "$dir/torchrun.log")
  local ok=1 delay=none exits=""
  if [[ -n $fault && -e $dir/verdict_at ]] &&
     grep -Eq "hang verdict.*rank $CULPRIT \(host [^,]*, pid [0-9]+, GPU [0-9]+\) has not called" "$dir/torchrun.log"; then
    at=$(cat "$dir/verdict_at")
    delay=$(minus "$at" "$fault")
    within "$delay" $VERDICT_WITHIN || ok=0
  else
    ok=0
  fi
  if [[ $action == abort ]]; then
    # The job must end by itself, with an error, within 30 s of the verdict.
    if [[ $code =~ ^exit\ ([0-9]+) && ${BASH_REMATCH[1]} != 0 && -n $at ]]; then
      exits="torchrun: ${code}, $(minus "$(grep -o 'at [0-9.]*$' "$dir/torchrun.log" | tail -1 | cut -c4-)" "$at") s"
      within "$(minus "$(grep -o 'at [0-9.]*$' "$dir/torchrun.log" | tail -1 | cut -c4-)" "$at")" $EXIT_WITHIN || ok=0
    else
      exits="torchrun: $code"
      ok=0
    fi
  else
    exits="torchrun: $code (report: left running)"
    [[ $code == "killed by the check" ]] || ok=0
  fi
  "$TOOL" trace "$dir/dumps" > "$dir/trace.txt" 2>&1
  local line result=PASS
  line=$(grep -m1 "hang verdict" "$dir/torchrun.log" | sed 's/.*\]: //; s/|/\\|/g')
  ((ok)) || { result=FAIL; failures=$((failures + 1)); }
  echo "| $name | ${line:-none} | $delay | $exits | $result |" >> "$summary"
  echo "=== $name: $result"
}

# A healthy job with a slow rank: the watchdog must stay quiet. Waits for every rank to finish,
# at most the pauses plus 10 ms a call plus a minute.
pause_job() {
  local dir=$OUTDIR/pauses r line start limit exits="" ok=1 alarms
  rm -rf "$dir"
  mkdir -p "$dir/dumps"
  chmod 700 "$dir/dumps"
  start=$(now)
  limit=$(( PAUSE_CALLS / PAUSE_EVERY * PAUSE_MS / 1000 + PAUSE_CALLS / 100 + 60 ))
  CALLS=$PAUSE_CALLS TIMEOUT=$PAUSE_TIMEOUT JOB_ARGS=(--pause-every "$PAUSE_EVERY" --pause-ms "$PAUSE_MS")
  run_ranks "$dir" none report
  CALLS=100000 TIMEOUT=${TIMEOUT_SAVED} JOB_ARGS=()
  local end=$(( $(date +%s) + limit ))
  while (( $(date +%s) < end )); do
    (( $(cat "$dir"/rank*.log 2>/dev/null | grep -Ec "^exit [0-9]+ at ") == NRANKS )) && break
    sleep 0.5
  done
  stop_ranks "$dir"
  for ((r = 0; r < NRANKS; r++)); do
    line=$(grep -E "^exit [0-9]+ at " "$dir/rank$r.log" | tail -1)
    exits+="$r: ${line%% at *} "
    [[ $line == "exit 0 at "* ]] || ok=0
  done
  alarms=$(cat "$dir"/rank*.log | grep -c "hang verdict")
  ((alarms == 0)) || ok=0
  local result=PASS
  ((ok)) || { result=FAIL; failures=$((failures + 1)); }
  echo "| pauses | $alarms hang verdicts: $PAUSE_CALLS calls, rank $CULPRIT paused $PAUSE_MS ms after every $PAUSE_EVERY-th, FLASHCCL_HANG_TIMEOUT=$PAUSE_TIMEOUT | (no fault) | $exits($(minus "$(now)" "$start") s) | $result |" >> "$summary"
  echo "=== pauses: $result"
}

TIMEOUT_SAVED=$TIMEOUT
all=$(seq -s ' ' 0 $((NRANKS - 1)))
others=$(seq 0 $((NRANKS - 1)) | grep -vx $CULPRIT | tr '\n' ' ')
who="rank $CULPRIT \\(host [^,]*, pid [0-9]+, GPU [0-9]+\\)"
for scenario in "${SCENARIOS[@]}"; do
  case $scenario in
    sleep) fault_job sleep sleep abort "hang verdict.*$who has not called AllReduce seq" "$all" ;;
    sleep-report) fault_job sleep-report sleep report "hang verdict.*$who has not called AllReduce seq" "$all" ;;
    kill) fault_job kill kill abort "hang verdict.*$who unreachable since .*process gone" "$others" ;;
    other) fault_job other other abort \
             "hang verdict.*rank $CULPRIT called AllGather\\(|WARN.*AllReduce\\([^)]*\\).*AllGather\\(|WARN.*AllGather\\([^)]*\\).*AllReduce\\(" "$all" ;;
    hold) fault_job hold hold abort "hang verdict.*rank $CULPRIT's kernel has not started" "$all" ;;
    hold-nccl) fault_job hold-nccl hold abort "hang verdict.*rank $CULPRIT's kernel has not started" "$all" \
                 FLASHCCL_ALGO=nccl FLASHCCL_TRACE=full ;;
    torch-report) torch_job torch-report report ;;
    torch-abort) torch_job torch-abort abort ;;
    pauses) pause_job ;;
    *) echo "fault_check.sh: unknown scenario $scenario (sleep sleep-report kill other hold hold-nccl torch-report torch-abort pauses)" >&2
       exit 2 ;;
  esac
done
cat "$summary"
exit $((failures > 0))
