#!/usr/bin/env bash
# NCCL with the tuner plugin (libnccl-tuner-flashccl.so) on a machine with ONE GPU or more: two
# processes share one GPU, each with its own NCCL_HOSTID, and run broadcast, reduce, all-gather,
# reduce-scatter and all-reduce through torch.distributed three times: without the plugin, with a
# table forcing a choice NCCL would not make, and with FLASHCCL_TUNER_FORCE. It checks in NCCL's
# own log (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING) that the choices were applied and that
# every result equals the run without the plugin. Details: tests/gpu/tuner_nccl_check.py.
#
#   tests/gpu/tuner_nccl_check.sh [--plugin PATH] [--out DIR] [--gpu N] [--build-dir DIR]
#
#   --plugin PATH    the plugin to check; without it the plugin is built first (CMake, the
#                    nccl_tuner_flashccl target only: a few seconds, no CUDA code compiled)
#   --build-dir DIR  where that build goes (default: build-tuner-check in the repository)
#   --out DIR        record (tuner-nccl-check.md), NCCL logs and the table (default:
#                    out/tuner-nccl-check-<date> in the repository)
#   --gpu N          the CUDA device both processes use (default 0)
# Environment: PYTHON, a python with PyTorch (CUDA) and its NCCL (default python3).
# Prints one PASS/FAIL line per check and a summary; exit 0 on PASS, 1 on FAIL, 2 on bad usage or
# a machine it cannot run on. Takes about a minute; the timings of such a run mean nothing.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
python=${PYTHON:-python3}
plugin=""
build_dir="$repo/build-tuner-check"
out="$repo/out/tuner-nccl-check-$(date +%F)"
gpu=0

usage() { sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
need_value() { [[ $# -ge 2 && -n $2 ]] || { echo "tuner_nccl_check: $1 needs a value" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --plugin) need_value "$@"; plugin=$2; shift 2 ;;
    --out) need_value "$@"; out=$2; shift 2 ;;
    --gpu) need_value "$@"; gpu=$2; shift 2 ;;
    --build-dir) need_value "$@"; build_dir=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "tuner_nccl_check: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
[[ $gpu =~ ^[0-9]+$ ]] || { echo "tuner_nccl_check: --gpu takes a device number, not '$gpu'" >&2; exit 2; }
command -v "$python" > /dev/null || { echo "tuner_nccl_check: no $python (set PYTHON)" >&2; exit 2; }

if [[ -z $plugin ]]; then
  echo "== building the plugin in $build_dir"
  mkdir -p "$build_dir"
  # Only the plugin target is built; the tests and the tool stay off so neither GoogleTest nor a
  # CUDA compile is needed.
  if ! { cmake -S "$repo" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DFLASHCCL_BUILD_TESTS=OFF \
           -DFLASHCCL_BUILD_TOOLS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 &&
         cmake --build "$build_dir" --target nccl_tuner_flashccl -j"$(nproc)"; } > "$build_dir/tuner-build.log" 2>&1; then
    tail -n 30 "$build_dir/tuner-build.log"
    echo "FAIL: the plugin did not build (log: $build_dir/tuner-build.log)"
    exit 1
  fi
  plugin="$build_dir/plugins/tuner/libnccl-tuner-flashccl.so"
fi
[[ -f $plugin ]] || { echo "tuner_nccl_check: no plugin at $plugin" >&2; exit 2; }

mkdir -p "$out"
exec "$python" "$repo/tests/gpu/tuner_nccl_check.py" check --plugin "$plugin" --out "$out" --gpu "$gpu"
