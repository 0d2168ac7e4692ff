#!/usr/bin/env bash
# flashccl over NCCL 2.21.5, 2.27.7 and 2.32.3 (or the versions given), on the CPU: each NCCL is
# found, ncclGetVersion reports its version, ncclGetUniqueId works, every export of the vendored
# nccl.h resolves or answers ncclInvalidUsage with one WARN naming it and the version, a config
# the size of NCCL 2.21's is read no further than its size, every nccl* the NCCL exports is
# flashccl's too, and nothing crashes.
#
#   BUILD=build tests/compat/run_matrix.sh [VERSION ...]
#
# The NCCLs come from PyPI's nvidia-nccl-cu12 wheels (200-300 MB each), downloaded once per
# machine: only libnccl.so.2 and nccl.h are kept, in $FLASHCCL_CI_CACHE (default
# ~/.cache/flashccl-ci/nccl-<version>); the wheel is deleted after extraction. Offline with a
# filled cache, nothing is downloaded. Prints PASS/FAIL per check; exits 1 on any FAIL.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build}
checker=$build/tests/compat/flashccl_nccl_compat_check
library=$(ls "$build"/src/libflashccl.so 2>/dev/null || true)
cache=${FLASHCCL_CI_CACHE:-$HOME/.cache/flashccl-ci}
versions=("$@")
((${#versions[@]})) || versions=(2.21.5 2.27.7 2.32.3)
[[ -x $checker && -n $library ]] || { echo "FAIL: build $checker and libflashccl.so first"; exit 1; }

failures=0
pass() { echo "PASS nccl $1: $2"; }
fail() { echo "FAIL nccl $1: $2"; failures=$((failures + 1)); }

fetch() {  # $1: version -> $cache/nccl-$1/{lib/libnccl.so.2,include/nccl.h}
  local dir=$cache/nccl-$1
  [[ -f $dir/lib/libnccl.so.2 && -f $dir/include/nccl.h ]] && return 0
  mkdir -p "$cache/wheels" "$dir/lib" "$dir/include"
  local wheel
  wheel=$(ls "$cache"/wheels/nvidia_nccl_cu12-"$1"-*.whl 2>/dev/null | head -1 || true)
  if [[ -z $wheel ]]; then
    python3 -m pip download --quiet --no-deps --only-binary=:all: "nvidia-nccl-cu12==$1" -d "$cache/wheels" >&2
    wheel=$(ls "$cache"/wheels/nvidia_nccl_cu12-"$1"-*.whl | head -1)
  fi
  python3 - "$wheel" "$dir" <<'PY'
import sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for member, target in (("nvidia/nccl/lib/libnccl.so.2", "lib/libnccl.so.2"),
                           ("nvidia/nccl/include/nccl.h", "include/nccl.h")):
        with z.open(member) as src, open(f"{out}/{target}", "wb") as dst:
            dst.write(src.read())
PY
  rm -f "$wheel"
}

for v in "${versions[@]}"; do
  if ! fetch "$v"; then fail "$v" "could not download or extract nvidia-nccl-cu12==$v"; continue; fi
  dir=$cache/nccl-$v
  code=$(sed -n 's/^#define NCCL_VERSION_CODE \([0-9]*\).*/\1/p' "$dir/include/nccl.h")
  out=$(mktemp) err=$(mktemp)
  set +e
  env -u LD_PRELOAD FLASHCCL_NCCL_LIBRARY="$dir/lib/libnccl.so.2" NCCL_DEBUG=WARN NCCL_SOCKET_IFNAME=lo \
    NCCL_NVLS_ENABLE=0 timeout 120 "$checker" >"$out" 2>"$err"
  rc=$?
  set -e
  value() { sed -n "s/^$1=//p" "$out" | head -1; }
  [[ $rc -eq 0 && $(value done) == 1 ]] && pass "$v" "checker ran to the end" ||
    { fail "$v" "checker exit $rc (a crash is 128+signal)"; tail -5 "$err"; }
  [[ $(value version) == "0,$code" ]] && pass "$v" "ncclGetVersion reports $code" ||
    fail "$v" "ncclGetVersion gave '$(value version)', want 0,$code"
  [[ $(value uniqueid) == "0,set" ]] && pass "$v" "ncclGetUniqueId works" ||
    fail "$v" "ncclGetUniqueId gave '$(value uniqueid)'"
  found=$(grep -c '^fn:.*=found$' "$out" || true)
  missing=$(grep '^fn:.*=missing' "$out" | sed 's/^fn:\([^=]*\)=.*/\1/' || true)
  bad=$(grep '^fn:.*=missing,' "$out" | grep -v '=missing,5$' | grep -v '=missing,other$' || true)
  [[ -z $bad ]] && pass "$v" "$found exports resolve, $(echo -n "$missing" | grep -c . || true) answer ncclInvalidUsage" ||
    fail "$v" "a missing function did not answer ncclInvalidUsage: $bad"
  unwarned=""
  for name in $missing; do
    n=$(grep -c "$name is not available in the loaded NCCL $v" "$err" || true)
    [[ $n -eq 1 ]] || unwarned+=" $name($n)"
  done
  [[ -z $unwarned ]] && pass "$v" "one WARN naming each missing function and $v" ||
    fail "$v" "WARN count not 1 for:$unwarned"
  [[ $(value oldconfig) == *",untouched" ]] && pass "$v" "2.21-sized ncclConfig_t read within its size, untouched" ||
    fail "$v" "old-sized config: '$(value oldconfig)'"
  theirs=$(nm -D --defined-only "$dir/lib/libnccl.so.2" | awk '{print $3}' | sed 's/@.*//' | grep -E '^p?nccl' | sort -u)
  ours=$(nm -D --defined-only "$library" | awk '{print $3}' | sed 's/@.*//' | sort -u)
  absent=$(comm -23 <(echo "$theirs") <(echo "$ours") | tr '\n' ' ')
  [[ -z ${absent// /} ]] && pass "$v" "every nccl*/pnccl* export of this libnccl is flashccl's too" ||
    fail "$v" "exported by NCCL $v, not by flashccl: $absent"
  rm -f "$out" "$err"
done

# The 2.21-sized struct of the checker is NCCL 2.21's ncclConfig_t.
if [[ " ${versions[*]} " == *" 2.21.5 "* && -f $cache/nccl-2.21.5/include/nccl.h ]]; then
  cuda_include=${CUDA_HOME:-/usr/local/cuda}/include
  size=$(printf '#include <stdio.h>\n#include <nccl.h>\nint main(void){printf("%%zu\\n",sizeof(ncclConfig_t));return 0;}\n' |
    cc -x c - -I"$cache/nccl-2.21.5/include" -I"$cuda_include" -o "$build/nccl221_config_size" && "$build/nccl221_config_size")
  expected=$(printf '#include <stddef.h>\nstruct C{size_t s;unsigned m,v;int b,c,mi,ma;const char*n;int sp;};\n#include <stdio.h>\nint main(void){printf("%%zu\\n",sizeof(struct C));return 0;}\n' |
    cc -x c - -o "$build/nccl221_config_mirror" && "$build/nccl221_config_mirror")
  [[ $size == "$expected" ]] && pass 2.21.5 "the checker's 2.21 config is that header's size ($size bytes)" ||
    fail 2.21.5 "2.21's ncclConfig_t is $size bytes, the checker's $expected"
fi

((failures == 0)) && echo "compat matrix: PASS (${versions[*]})" || echo "compat matrix: FAIL ($failures)"
((failures == 0))
