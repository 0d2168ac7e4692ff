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
# Recovery (issue 27; docs/trace.md, "Recovery"): the survivors shrink the communicator without the
# culprit (ncclCommShrink, NCCL_SHRINK_ABORT) and run SHRINK_CALLS (1000) checked AllReduce/
# AllGather/ReduceScatter calls on the child, then destroy the parent:
#   shrink       rank 1 is killed; FLASHCCL_HANG_TIMEOUT=SHRINK_KILL_TIMEOUT (600): the dead peer
#                must be known without it
#   shrink-stuck rank 1 stops calling; FLASHCCL_HANG_ACTION=revoke, FLASHCCL_HANG_TIMEOUT=SHRINK_TIMEOUT (8)
#   shrink-across-nodes  `shrink` with 2x2 processes (FLASHCCL_NODE_ID per pair), rank 1 killed
#   shrink-node  3x2 processes, rank 1 killed, the survivors cut its whole node out (rank 0 too):
#                the child, 2 nodes x 2, must run flashccl's kernels across nodes (rails) again
#   shrink-torch a PyTorch job of 3 processes (tests/gpu/recovery_torch.py, shrink_group), rank 1 killed
# They pass when every survivor exits 0 with 0 wrong results, its call failed within 2 s of the
# kill (stuck: SHRINK_TIMEOUT + 5 s) and its child's first call came within 5 s of the kill
# (stuck: SHRINK_TIMEOUT + 5 s); on one node (and in shrink-node), the child must have run
# flashccl's kernels (shrink-across-nodes: its 2+1 ranks may be NCCL's, with the reason). They
# write OUTDIR/recovery.md (a table for bench/results) besides the summary row.
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
SHRINK_CALLS=${SHRINK_CALLS:-1000}
SHRINK_TIMEOUT=${SHRINK_TIMEOUT:-8}
SHRINK_KILL_TIMEOUT=${SHRINK_KILL_TIMEOUT:-600}
NODE_SIZE=""  # ranks per node (FLASHCCL_NODE_ID) for the job being started; "": one node
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
    ( env "$@" NCCL_HOSTID="flashccl-fault-$r" NCCL_SOCKET_IFNAME=lo ${NODE_SIZE:+FLASHCCL_NODE_ID=fault-node-$((r / NODE_SIZE))} \
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
      # Exit first: a rank seen exited has its verdict (printed before) seen in this round too, however
      # soon after the verdict it exits (a peer gone: at once).
      ((r != CULPRIT)) && grep -q "^exit " "$dir/rank$r.log" 2>/dev/null && exited=$((exited + 1))
      [[ -e $dir/verdict_at.$r ]] || ! grep -Eq "$pattern" "$dir/rank$r.log" 2>/dev/null || now > "$dir/verdict_at.$r"
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

# Recovery: shrink_job NAME SCENARIO ACTION RANKS TIMEOUT KNOWN_WITHIN CHILD_WITHIN [NODE_SIZE [ALSO_EXCLUDE]]
# ALSO_EXCLUDE: a rank the survivors cut out with the culprit (its node-mate); it must leave (exit 0).
recovery=$OUTDIR/recovery.md
# Seconds from FAULT to LOG's first line "PREFIX <time>:", or "none".
after_fault() {
  local at
  at=$(sed -n "s/^$3 \\([0-9.]*\\):.*/\\1/p" "$2" | head -1)
  if [[ -n $at ]]; then minus "$at" "$1"; else echo none; fi
}
shrink_job() {
  local name=$1 scenario=$2 action=$3 nranks=$4 timeout=$5 known_within=$6 child_within=$7 node_size=${8:-}
  local also=${9:--1}
  local dir=$OUTDIR/$name r fault line at known="" child="" results="" ok=1 end exited
  rm -rf "$dir"
  mkdir -p "$dir/dumps"
  chmod 700 "$dir/dumps"
  local saved_nranks=$NRANKS saved_timeout=$TIMEOUT
  NRANKS=$nranks TIMEOUT=$timeout NODE_SIZE=$node_size JOB_ARGS=(--shrink-calls "$SHRINK_CALLS" --also-exclude "$also")
  ((also >= 0)) || JOB_ARGS=(--shrink-calls "$SHRINK_CALLS")
  run_ranks "$dir" "$scenario" "$action"
  # Every survivor ends by itself: the time to know, then the child's calls and the destroys
  # (seconds on one GPU), with margin; the whole job (set-up and the calls before the fault
  # included) gets that plus 40 s.
  end=$(( $(date +%s) + child_within + 40 ))
  while (( $(date +%s) < end )); do
    exited=0
    for ((r = 0; r < NRANKS; r++)); do
      ((r != CULPRIT)) && grep -q "^exit " "$dir/rank$r.log" 2>/dev/null && exited=$((exited + 1))
    done
    ((exited == NRANKS - 1)) && break
    sleep 0.25
  done
  stop_ranks "$dir"
  fault=$(fault_time "$dir/rank$CULPRIT.log")
  [[ -n $fault ]] || { ok=0; fault=$(now); }
  for ((r = 0; r < NRANKS; r++)); do
    ((r == CULPRIT)) && continue
    if ((r == also)); then
      grep -q "^excluded with the culprit: left the job" "$dir/rank$r.log" && grep -q "^exit 0 at " "$dir/rank$r.log" ||
        ok=0
      results+="$r: excluded, $(grep "^exit " "$dir/rank$r.log" | tail -1 | cut -d' ' -f1-2) "
      continue
    fi
    at=$(after_fault "$fault" "$dir/rank$r.log" "error seen at")
    known+="$r: $at "
    [[ $at != none ]] && within "$at" "$known_within" || ok=0
    at=$(after_fault "$fault" "$dir/rank$r.log" "child first call ok at")
    child+="$r: $at "
    [[ $at != none ]] && within "$at" "$child_within" || ok=0
    line=$(grep -m1 "^child done: " "$dir/rank$r.log")
    [[ $line == "child done: $SHRINK_CALLS calls, 0 wrong "* ]] || ok=0
    # On one node the child must have run flashccl's kernels (some algorithm that is not NCCL's).
    # Across nodes too when the child's nodes are alike (ALSO_EXCLUDE cuts a whole node out).
    [[ -n $node_size ]] && ((also < 0)) || grep -Eq '^child done: .*algorithms .*:[A-Za-z_]' <<< "$(sed 's/:NCCL\b//g' <<< "$line")" || ok=0
    results+="$r: ${line#child done: } ($(grep -m1 '^parent destroyed in' "$dir/rank$r.log" || echo 'parent not destroyed'); $(grep "^exit " "$dir/rank$r.log" | tail -1 | cut -d' ' -f1-2)) "
    grep -q "^exit 0 at " "$dir/rank$r.log" || ok=0
  done
  local first state result=PASS
  first=$(grep -h -m1 "^child first call ok at" "$dir"/rank*.log | head -1 | sed 's/^child first call ok at [0-9.]*: //; s/|/\\|/g')
  state=$(grep -h -m1 -E "hang verdict|async error" "$dir"/rank*.log | head -1 | sed 's/.*\]: //; s/|/\\|/g')
  "$TOOL" trace "$dir/dumps" > "$dir/trace.txt" 2>&1
  ((ok)) || { result=FAIL; failures=$((failures + 1)); }
  echo "| $name | ${state:-none} | error after (s) $known; child's first call after (s) $child | $results | $result |" >> "$summary"
  [[ -e $recovery ]] || {
    echo "# Recovery on one GPU ($(date +%F), $(hostname), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null))"
    echo
    echo "Survivors shrink without rank $CULPRIT (NCCL_SHRINK_ABORT) and run $SHRINK_CALLS checked calls on the child."
    echo
    echo "| scenario | processes | FLASHCCL_HANG_TIMEOUT / action | fault -> survivors' error (s) | fault -> child's first call (s) | child (first survivor's first call) | results | |"
    echo "|---|---|---|---|---|---|---|---|"
  } > "$recovery"
  echo "| $name | $NRANKS${node_size:+ ($((NRANKS / node_size)) nodes)} | $TIMEOUT / $action | $known | $child | ${first:-none} | $results | $result |" >> "$recovery"
  echo "=== $name: $result"
  NRANKS=$saved_nranks TIMEOUT=$saved_timeout NODE_SIZE="" JOB_ARGS=()
}

# The same in a PyTorch job (tests/gpu/recovery_torch.py: its own launcher, shrink_group).
torch_shrink_job() {
  local dir=$OUTDIR/shrink-torch line result=PASS
  rm -rf "$dir"
  mkdir -p "$dir/dumps"
  chmod 700 "$dir/dumps"
  env FLASHCCL_HANG_TIMEOUT="$SHRINK_KILL_TIMEOUT" FLASHCCL_TRACE_DIR="$dir/dumps" ${LIB:+LD_PRELOAD="$LIB"} \
    NRANKS=3 CULPRIT=$CULPRIT STEPS_AFTER=$SHRINK_CALLS DEADLINE_S=90 \
    timeout -s KILL 110 "$PYTHON" "$root/tests/gpu/recovery_torch.py" "$dir" > "$dir/launcher.log" 2>&1
  line=$(grep -m1 "^torch recovery: " "$dir/launcher.log")
  [[ $line == "torch recovery: PASS"* ]] || { result=FAIL; failures=$((failures + 1)); }
  echo "| shrink-torch | ${line:-no verdict (see launcher.log)} | $(grep '^rank [0-9]*: exit' "$dir/launcher.log" | tr '\n' ' ' | sed 's/|/\\|/g') | | $result |" >> "$summary"
  [[ -e $dir/torch.md ]] && { echo; cat "$dir/torch.md"; } >> "$recovery"
  echo "=== shrink-torch: $result"
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
    shrink) shrink_job shrink kill report 3 "$SHRINK_KILL_TIMEOUT" 2 5 ;;
    shrink-stuck) shrink_job shrink-stuck sleep revoke 3 "$SHRINK_TIMEOUT" $((SHRINK_TIMEOUT + 5)) $((SHRINK_TIMEOUT + 5)) ;;
    shrink-across-nodes) shrink_job shrink-across-nodes kill report 4 "$SHRINK_KILL_TIMEOUT" 2 5 2 ;;
    shrink-node) shrink_job shrink-node kill report 6 "$SHRINK_KILL_TIMEOUT" 2 5 2 0 ;;
    shrink-torch) torch_shrink_job ;;
    *) echo "fault_check.sh: unknown scenario $scenario (sleep sleep-report kill other hold hold-nccl torch-report torch-abort pauses shrink shrink-stuck shrink-across-nodes shrink-node shrink-torch)" >&2
       exit 2 ;;
  esac
done
cat "$summary"
exit $((failures > 0))
