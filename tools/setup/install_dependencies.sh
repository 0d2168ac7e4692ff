#!/usr/bin/env bash
# Installs what building and testing flashccl needs, on a fresh Debian/Ubuntu machine: the Debian
# packages below and, when the CUDA toolkit lacks it, NVML's header from PyPI (into .deps/). Run by .ci/run and
# start.sh; safe to run again (it installs only what is missing). The CUDA toolkit and NCCL are
# not installed here: they come with the machine (CI image, GPU host).
set -euo pipefail

# Every package the build and the tests use, and why:
packages=(
  cmake make g++ binutils    # the build; binutils' readelf/nm for the export and link checks
  ninja-build                # the generator CI and the wheel build share (one build folder)
  pkg-config                 # the install test reads flashccl.pc back
  libgtest-dev libgmock-dev  # unit tests
  libhwloc-dev               # host layout (hwloc.h; the library is dlopen'ed at run time)
  libibverbs-dev             # rdma-core, for the NIC side of topology and the net plugin
  iproute2 nftables          # the net plugin's namespace tests: veth rails, links taken down, loss
  libbenchmark-dev           # the flight recorder's cost benchmark (bench/trace_record)
  libcli11-dev               # option parsing of the flashccl command (header-only)
  nlohmann-json3-dev         # JSON results of flashccl perf (header-only)
  python3-venv               # the wheel test installs the wheel into a fresh venv
  clang-14 libclang-rt-14-dev  # tests/fuzz: clang and libFuzzer (libclang_rt.fuzzer), ASan, UBSan
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if ((${#missing[@]})); then
  echo "install_dependencies: apt-get install ${missing[*]}"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# nvml.h: a full CUDA toolkit ships it (cuda-nvml-dev); a toolkit assembled from NVIDIA's pip
# wheels does not. We only need the header (NVML itself is dlopen'ed), which PyPI carries in the
# nvidia-nvml-dev wheel. It goes into .deps/python of this checkout, not into a system Python
# (which may refuse pip installs, PEP 668); cmake/nvml_header.cmake looks there after the toolkit.
nvcc=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
cuda_root=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if ! ls "$cuda_root"/include/nvml.h "$cuda_root"/targets/*/include/nvml.h >/dev/null 2>&1 &&
   ! ls "$repo"/.deps/python/nvidia/*/include/nvml.h >/dev/null 2>&1; then
  echo "install_dependencies: no nvml.h in $cuda_root; pip install nvidia-nvml-dev into $repo/.deps/python"
  "${PYTHON:-python3}" -m pip install --quiet --disable-pip-version-check --target "$repo/.deps/python" \
      nvidia-nvml-dev
fi
