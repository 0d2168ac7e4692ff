#!/usr/bin/env bash
# The PyTorch acceptance run for the flashccl wheel (needs >= 2 GPUs and the wheel installed in
# the python that has torch: python3 -m pip install --no-index --no-deps flashccl-*.whl).
#
#   tests/integration/run_torch_check.sh [OUT_DIR]
#
# Runs tests/integration/torch_collectives.py under torchrun four times:
#   nccl      plain NCCL (LD_PRELOAD cleared): the baseline
#   enable    a launcher that calls flashccl.enable() and then starts torchrun
#   run       python -m flashccl run torchrun ...
#   preload   LD_PRELOAD=$(flashccl.lib_paths()) set by hand
# then compares every result with the baseline (bitwise) and checks that each flashccl run logged
# "flashccl <version> active over NCCL" under NCCL_DEBUG=INFO and the baseline did not.
# Environment: PYTHON (default python3), NPROC (GPUs, default 2), MODES (eager,graph by default;
# one of them alone halves the run), OUT_DIR via the argument.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${PYTHON:-python3}
nproc=${NPROC:-2}
out=${1:-$(mktemp -d "${TMPDIR:-/tmp}/flashccl-torch-check.XXXXXX")}
mkdir -p "$out"

# NVLink multicast can take a shared host's GPUs out of service: off in every process we start.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export NCCL_DEBUG=INFO PYTHONUNBUFFERED=1
unset LD_PRELOAD FLASHCCL_NCCL_LIBRARY

version=$("$python" -c "import flashccl; print(flashccl.version())") || {
  echo "flashccl is not installed for $python: pip install --no-index --no-deps flashccl-*.whl"; exit 2; }
banner="flashccl ${version} active over NCCL"
torchrun=("$python" -m torch.distributed.run --standalone --nproc_per_node="$nproc")
job=("$here/torch_collectives.py" --modes "${MODES:-eager,graph}")

status=0
run_variant() {  # name, then the command that starts the job
  local name=$1; shift
  echo "== $name: $*"
  local start=$SECONDS
  "$@" > "$out/$name.log" 2>&1
  local rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "   FAILED (exit $rc), last lines of $out/$name.log:"; tail -n 30 "$out/$name.log"; status=1
  fi
  echo "   $((SECONDS - start)) s, log $out/$name.log"
}

run_variant nccl "${torchrun[@]}" "${job[@]}" --out "$out/nccl"
run_variant enable "$python" -c \
  'import subprocess, sys, flashccl; flashccl.enable(debug="INFO"); sys.exit(subprocess.call(sys.argv[1:]))' \
  "${torchrun[@]}" "${job[@]}" --out "$out/enable"
run_variant run "$python" -m flashccl run -- "${torchrun[@]}" "${job[@]}" --out "$out/run"
preload=$("$python" -c "import flashccl; print(flashccl.lib_paths())")
run_variant preload env LD_PRELOAD="$preload" "${torchrun[@]}" "${job[@]}" --out "$out/preload"

echo "== banner \"$banner\""
for name in enable run preload; do
  count=$(grep -c -F "$banner" "$out/$name.log")
  if [[ $count -ge $nproc ]]; then echo "   $name: $count lines"; else echo "   $name: $count lines, expected >= $nproc"; status=1; fi
done
if grep -q -E "flashccl [0-9]+\.[0-9]+\.[0-9]+[^ ]* active over NCCL" "$out/nccl.log"; then
  echo "   nccl: the baseline logged a flashccl banner"; status=1
fi
grep -h -F "$banner" "$out"/enable.log | head -n 2 | sed 's/^/   /'

echo "== results against the baseline"
"$python" "$here/compare_results.py" "$out/nccl" "$out/enable" "$out/run" "$out/preload" || status=1

echo "== $( ((status == 0)) && echo PASS || echo FAIL ) (logs and rank*.json in $out)"
exit $status
