#!/usr/bin/env bash
# Install what the build needs, build flashccl, and run the main job: on a machine with >= 2 NVIDIA
# GPUs, `flashccl perf` side by side with NCCL (AllReduce, AllGather, ReduceScatter, 8 B - 128 MB);
# without GPUs, a clear message and `flashccl plan` (what flashccl would run on this machine type,
# and why). perf itself sets NCCL_NVLS_ENABLE=0 when it is unset (never NVLink multicast on our
# machines) and its record says so.
set -euo pipefail
cd "$(dirname "$0")"
bash tools/setup/install_dependencies.sh
build=${BUILD_DIR:-build}
# Ninja, as .ci/run uses: the two README commands share this build folder, and CMake refuses a
# folder made by another generator.
generator=(-G Ninja)
[[ -f $build/CMakeCache.txt ]] && generator=()
# GPU code for the GPUs here ("native"); without GPUs, for Hopper only (the CPU-side view needs
# none, and one architecture halves the CUDA compile). CMAKE_CUDA_ARCHITECTURES overrides both.
arch=${CMAKE_CUDA_ARCHITECTURES:-}
if [[ -z $arch ]]; then
  if nvidia-smi -L > /dev/null 2>&1; then arch=native; else arch=90; fi
fi
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" > "$build.configure.log" 2>&1 \
  || { tail -30 "$build.configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target flashccl flashccl_cli
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [[ ${gpus:-0} -ge 2 ]]; then
  exec "$build/tools/flashccl" perf --coll all -b 8 -e 128M -f 2 "$@"
fi
echo
echo "flashccl: no machine with 2 or more NVIDIA GPUs here (found ${gpus:-0}); the benchmark needs them."
echo "Showing instead what flashccl would run on such a machine (flashccl plan):"
echo
exec "$build/tools/flashccl" plan "$@"
