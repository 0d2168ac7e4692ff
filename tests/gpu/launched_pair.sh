# Shared by the one-GPU checks that run two ranks of a launched job (tune_check.sh,
# calibrate_check.sh); sourced, not run. The caller sets dry (1: print the commands), W (a work
# directory), SUMMARY (the summary file) and failures (a counter).
#
# check PASS|FAIL NAME WHAT: one line in the summary.
check() {
  echo "$1  $2: $3" | tee -a "$SUMMARY"
  [[ $1 == PASS ]] || failures=$((failures + 1))
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 20000))
}

# pair_run NAME LIMIT HOSTID_PREFIX EXTRA0 EXTRA1 -- COMMAND...: COMMAND as ranks 0 and 1 of one
# launched job on GPU 0 (RANK / WORLD_SIZE / LOCAL_RANK=0, as torchrun sets them), each with its
# own NCCL_HOSTID (NCCL then accepts two ranks on one device and joins them over lo), meeting at
# NCCL_COMM_ID on 127.0.0.1. EXTRAr: "VAR=value ..." for rank r only (no spaces inside a value);
# "{rank}" in COMMAND becomes the rank. Output in $W/NAME.rankR.log; sets status0 / status1.
pair_run() {
  local name=$1 limit=$2 prefix=$3; local extras=("$4" "$5"); shift 6
  local port; port=$(free_port)
  local pids=()
  for r in 0 1; do
    local env=(RANK=$r WORLD_SIZE=2 LOCAL_RANK=0 NCCL_HOSTID=$prefix-$r NCCL_COMM_ID=127.0.0.1:$port ${extras[$r]})
    local cmd=("${@//\{rank\}/$r}")
    if ((dry)); then
      echo "${env[*]} NCCL_NVLS_ENABLE=0 NCCL_SOCKET_IFNAME=lo timeout -k 10 $limit ${cmd[*]}"
      continue
    fi
    env "${env[@]}" timeout -k 10 "$limit" "${cmd[@]}" > "$W/$name.rank$r.log" 2>&1 &
    pids+=($!)
  done
  status0=0 status1=0
  if ((dry)); then return; fi
  wait "${pids[0]}"; status0=$?
  wait "${pids[1]}"; status1=$?
}

# summary_header LINE...: the summary's first lines (the caller's, then the GPU and the commit),
# also printed.
summary_header() {
  {
    printf '%s\n' "$@"
    echo "# GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
    echo "# commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown); BUILD=$BUILD"
  } > "$SUMMARY"
  cat "$SUMMARY"
}

# need_binaries: the flashccl command ($F), the tuner plugin ($PLUGIN) and the library of $BUILD,
# else one FAIL line and exit 1 (not in a dry run).
need_binaries() {
  if ((!dry)) && [[ ! -x $F || ! -f $PLUGIN || ! -f $BUILD/src/libflashccl.so ]]; then
    check FAIL build "need $F, $PLUGIN and $BUILD/src/libflashccl.so (build with cmake, or carry them: BUILD=...)"
    exit 1
  fi
}
