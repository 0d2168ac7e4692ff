#!/usr/bin/env bash
# Real NCCL through the softbond net plugin, on a machine with one GPU (or more):
#
#   tests/gpu/softbond_nccl_check.sh [OUT_DIR]
#
# Two processes share GPU 0, each with its own NCCL_HOSTID and NCCL_SOCKET_IFNAME=lo, so NCCL
# takes them for two hosts and joins them through its network transport. Four runs of the same
# AllReduce / AllGather / ReduceScatter / send-recv sweep (float32 and int32, 1 KiB - 64 MiB per
# rank, 3 iterations; softbond_nccl_check checks every result against the exact answer):
#   socket   NCCL's own socket transport (NCCL_NET_PLUGIN=none): the reference
#   plugin   libnccl-net-softbond.so with two rails on lo (FLASHCCL_SOFTBOND_RAILS=lo,lo)
#   fault    the same, rail 0 of rank 0 failed after 64 MiB (FLASHCCL_SOFTBOND_FAULT=rail0:after=64M)
#   reset    the same, rail 1 of rank 0's sockets closed after 256 MiB (...=rail1:after=256M:reset)
# PASS when every run exits 0 with every result right, the plugin runs' checksums equal the
# socket run's, NCCL's log says it used the softbond network, and the fault runs logged their
# failover. Prints a summary; with OUT_DIR, also writes OUT_DIR/softbond-nccl-check.md and keeps
# every log there.
#
# Environment: BUILD_DIR (default build-gpu; configured and the two targets built if missing),
# NCCL_NET_PLUGIN_PATH (default: the plugin in BUILD_DIR), TIMEOUT_S per run (default 600).
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
out=${1:-}
work=${out:-$(mktemp -d /tmp/softbond-nccl-check.XXXXXX)}
mkdir -p "$work"
build=${BUILD_DIR:-build-gpu}
timeout_s=${TIMEOUT_S:-600}
check_bin=$build/plugins/net-softbond/tests/softbond_nccl_check
plugin=${NCCL_NET_PLUGIN_PATH:-$build/plugins/net-softbond/libnccl-net-softbond.so}

if [[ ! -x $check_bin || ! -f $plugin ]]; then
  echo "== building softbond_nccl_check and the plugin in $build"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$work/build.log" 2>&1 &&
    cmake --build "$build" -j"$(nproc)" --target nccl-net-softbond softbond_nccl_check >> "$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log"; echo "FAIL: build"; exit 1; }
fi
plugin=$(realpath "$plugin")
if ! nvidia-smi -L > "$work/gpus.txt" 2>&1; then
  echo "FAIL: no GPU (nvidia-smi -L failed: $(cat "$work/gpus.txt"))"
  exit 1
fi

# run NAME RANK0_ENV... : both ranks of one sweep; rank 0 gets the extra VAR=VALUE arguments.
run() {
  local name=$1; shift
  local dir=$work/$name
  mkdir -p "$dir"
  rm -f "$dir/id"
  local common=(NCCL_NVLS_ENABLE=0 NCCL_SOCKET_IFNAME=lo NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET
                NCCL_IB_DISABLE=1)
  if [[ $name == socket ]]; then
    common+=(NCCL_NET_PLUGIN=none NCCL_NET=Socket)
  else
    # NCCL_NET=softbond: if the plugin failed to load, NCCL errors out instead of quietly using
    # its own socket transport.
    common+=(NCCL_NET_PLUGIN="$plugin" NCCL_NET=softbond FLASHCCL_SOFTBOND_RAILS=lo,lo)
  fi
  local start=$SECONDS pids=()
  for rank in 0 1; do
    local extra=()
    [[ $rank == 0 ]] && extra=("$@")
    env "${common[@]}" "${extra[@]}" NCCL_HOSTID="softbond-check-host$rank" \
      NCCL_DEBUG_FILE="$dir/nccl.rank$rank.log" \
      timeout "$timeout_s" "$check_bin" --rank "$rank" --nranks 2 --id-file "$dir/id" \
      --out "$dir/results.rank$rank.txt" > "$dir/stdout.rank$rank.txt" 2>&1 &
    pids+=($!)
  done
  local status=0
  for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
  echo "$status" > "$dir/exit"
  echo "$((SECONDS - start))" > "$dir/seconds"
}

echo "== runs in $work"
run socket
run plugin
run fault FLASHCCL_SOFTBOND_FAULT=rail0:after=64M FLASHCCL_SOFTBOND_TIMEOUT_MS=1000
run reset FLASHCCL_SOFTBOND_FAULT=rail1:after=256M:reset

verdicts=()
failed=0
verdict() {  # NAME OK(0/1) DETAIL
  local mark=PASS
  [[ $2 == 1 ]] || { mark=FAIL; failed=1; }
  verdicts+=("| $1 | $mark | $3 |")
  printf '%-8s %s  %s\n' "$1" "$mark" "$3"
}
for name in socket plugin fault reset; do
  dir=$work/$name
  status=$(cat "$dir/exit")
  lines=$(cat "$dir"/results.rank*.txt 2>/dev/null | wc -l)
  wrong=$(cat "$dir"/results.rank*.txt 2>/dev/null | grep -vc ' ok$')
  detail="exit $status, $lines results, $wrong wrong, $(cat "$dir/seconds") s"
  ok=1
  [[ $status == 0 && $lines -gt 0 && $wrong == 0 ]] || ok=0
  if [[ $name != socket ]]; then
    # Same checksums as NCCL's own transport, call for call.
    for rank in 0 1; do
      if ! diff -q <(cut -d' ' -f1-5 "$work/socket/results.rank$rank.txt") \
                   <(cut -d' ' -f1-5 "$dir/results.rank$rank.txt") > /dev/null 2>&1; then
        ok=0; detail+=", rank $rank differs from the socket run"
      fi
    done
    if grep -qi "Using network softbond" "$dir"/nccl.rank*.log; then
      detail+=", NCCL used the softbond network"
    else
      ok=0; detail+=", NCCL's log does not say it used the softbond network"
    fi
  fi
  if [[ $name == fault || $name == reset ]]; then
    failovers=$(grep -h "NET/softbond" "$dir"/nccl.rank*.log | grep -c "resent on rail\|nothing was in flight\|receiving continues")
    if [[ $failovers -gt 0 ]]; then
      detail+=", $failovers failover line(s) logged"
    else
      ok=0; detail+=", no failover logged"
    fi
  fi
  verdict "$name" "$ok" "$detail"
done

overall=PASS
[[ $failed == 0 ]] || overall=FAIL
echo "softbond NCCL check: $overall"

if [[ -n $out ]]; then
  nccl_version=$(grep -ho "NCCL version [0-9.+a-z]*" "$work/socket/nccl.rank0.log" | head -1)
  {
    echo "# softbond net plugin under real NCCL (two processes on one GPU)"
    echo
    echo "| | |"
    echo "|---|---|"
    echo "| date | $(date -u +%FT%T+00:00) |"
    echo "| machine | $(hostname), $(head -1 "$work/gpus.txt") |"
    echo "| NCCL | ${nccl_version:-unknown} |"
    echo "| commit | $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown) |"
    echo "| command | \`tests/gpu/softbond_nccl_check.sh $out\` |"
    echo "| plugin | $plugin |"
    echo
    echo "Each run: AllReduce, AllGather, ReduceScatter and send/recv, float32 and int32, 1 KiB - 64 MiB"
    echo "per rank, 3 iterations, every result checked against the exact answer. socket = NCCL's own"
    echo "transport (the reference); plugin = softbond with rails lo,lo; fault = rank 0's rail 0 failed"
    echo "after 64 MiB; reset = rank 0's rail 1 sockets closed after 256 MiB."
    echo
    echo "| run | verdict | detail |"
    echo "|---|---|---|"
    printf '%s\n' "${verdicts[@]}"
    echo
    echo "**$overall**"
    echo
    echo "## Failover as NCCL logged it (fault and reset runs)"
    echo
    echo '```'
    grep -h "NET/softbond" "$work"/fault/nccl.rank*.log "$work"/reset/nccl.rank*.log | grep -E "WARN|back in service" | head -20
    echo '```'
  } > "$out/softbond-nccl-check.md"
  echo "record: $out/softbond-nccl-check.md"
fi
[[ $overall == PASS ]]
