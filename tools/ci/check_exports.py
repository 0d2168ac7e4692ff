#!/usr/bin/env python3
"""The export check: libflashccl.so exports every function an nccl.h declares, and its pncclX twin,
and no nccl*/pnccl* name beyond them (docs/design.md, "The NCCL ABI flashccl exports").

    check_exports.py LIBRARY NEWEST_NCCL_H [OLDER_NCCL_H ...]

For each header: "0 missing" (every function it declares is exported) and "0 extra" (every
nccl*/pnccl* export is declared by it, declared by a newer header given here, or one of the few
NCCL exports nccl.h does not declare, listed below with their header). The one export outside
nccl*/pnccl*/flashccl* allowed is the dlopen interposer (src/shim/dlopen_redirect.cc). Exit 1 on
any difference, with the names.
"""

import re
import subprocess
import sys

# NCCL's libnccl.so.2 exports these too, but nccl.h does not declare them: the host side of the
# device API (nccl_device/*.h) and NCCL's internal logging reset. tests/compat/run_matrix.sh
# checks every nccl* export of each real libnccl against flashccl's, these included.
EXPORTED_OUTSIDE_NCCL_H = {
    "ncclDevCommCreate", "ncclDevCommDestroy", "ncclLsaBarrierCreateRequirement",
    "ncclGinBarrierCreateRequirement", "ncclLLA2ACreateRequirement", "ncclLLA2ACalcSlots",
    "ncclTeamWorld", "ncclTeamLsa", "ncclTeamRail", "ncclTeamRankToWorld", "ncclTeamRankToLsa",
    "ncclResetDebugInitInternal",
    # NCCL 2.32's additions there (nccl_device/core.h, host.h, gin_win_stub.h).
    "ncclCommQueryProperties", "ncclGetLsaMultimemDevicePointer", "ncclGetMultimemDevicePointer",
    "ncclGetLsaDevicePointer", "ncclGetPeerDevicePointer", "ncclGetMultimemDeviceLeInfo",
    "ncclGetCftDeviceLeInfo", "ncclGetPeerDeviceLeInfo", "ncclGinOutboxCreateRequirement",
    "ncclGinInboxA2ACreateRequirement", "ncclTeamCft", "ncclTeamCftMultimem",
}
# The one non-NCCL export, and why: under LD_PRELOAD an application's dlopen of libnccl.so* gives
# flashccl (docs/design.md, "Reaching every NCCL user").
INTERPOSERS = {"dlopen"}

_DECLARATION = re.compile(r"\b(p?nccl[A-Za-z0-9_]*)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*;")


def declared_functions(header_text):
    """Names of the functions a header declares (comments and preprocessor lines left out)."""
    text = re.sub(r"/\*.*?\*/", " ", header_text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    names = set()
    for match in _DECLARATION.finditer(text):
        # A declaration has a return type before the name: not a call inside a macro or a cast.
        before = text[:match.start()].rstrip()
        if re.search(r"(ncclResult_t|void|int|char\s*\*|ncclTeam_t|\))$", before):
            names.add(match.group(1))
    return names


def header_version(header_text):
    match = re.search(r"#define NCCL_VERSION_CODE (\d+)", header_text)
    code = int(match.group(1)) if match else 0
    return f"{code // 10000}.{code % 10000 // 100}.{code % 100}" if code >= 10000 else str(code)


def exported_symbols(library):
    out = subprocess.run(["nm", "-D", "--defined-only", library], check=True, capture_output=True,
                         text=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 3:
            names.add(fields[2].split("@")[0])
    return names


def with_twins(names):
    return names | {"p" + name for name in names if not name.startswith("p")}


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    library, headers = argv[1], argv[2:]
    ours = exported_symbols(library)
    nccl_exports = {n for n in ours if n.startswith("nccl") or n.startswith("pnccl")}
    others = {n for n in ours if n not in nccl_exports and not n.startswith("flashccl")}
    failed = False
    if others - INTERPOSERS:
        print(f"FAIL {library}: exports outside nccl*/pnccl*/flashccl*: {sorted(others - INTERPOSERS)}")
        failed = True
    texts = [open(h, encoding="utf-8").read() for h in headers]
    newest = declared_functions(texts[0])
    outside = with_twins(EXPORTED_OUTSIDE_NCCL_H) - {"pncclResetDebugInitInternal"}
    for header, text in zip(headers, texts):
        declared = declared_functions(text)
        if len(declared) < 50:
            print(f"FAIL {header}: only {len(declared)} functions found; is it nccl.h?")
            failed = True
            continue
        missing = sorted(declared - nccl_exports)
        newer = (newest - declared) if declared is not newest else set()
        extra = sorted(nccl_exports - declared - newer - outside)
        version = header_version(text)
        print(f"{'FAIL' if missing or extra else 'PASS'} nccl.h {version} ({header}): "
              f"{len(declared)} declared, {len(missing)} missing, {len(extra)} extra"
              + (f"; {len(newer & nccl_exports)} exports from newer NCCL" if newer else ""))
        for name in missing:
            print(f"  missing: {name}")
        for name in extra:
            print(f"  extra: {name}")
        failed = failed or bool(missing or extra)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
