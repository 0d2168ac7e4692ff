"""What this process has already loaded, read from /proc/<pid>/maps.

enable() can only change the environment of processes started later: the dynamic linker reads
LD_PRELOAD once, at a process's start, and symbols already bound to NCCL stay bound. So it has to
know whether NCCL is already in this process to say so.
"""

from __future__ import annotations

import os
import re
import sys
from typing import List

# libnccl.so, libnccl.so.2, libnccl.so.2.28.3 - but not the plugins (libnccl-net-*.so, ...).
_NCCL_LIBRARY = re.compile(r"^libnccl\.so(\.\d+)*$")
# libtorch_cuda.so brings NCCL with it: as a dependency (pip wheels) or linked in (static builds).
_NCCL_CARRIERS = ("libtorch_cuda.so",)


def mapped_files(pid: str = "self") -> List[str]:
    """Distinct file paths mapped into process `pid`, in first-mapped order."""
    seen = {}
    with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as maps:
        for line in maps:
            # address perms offset dev inode [path]; the path may contain spaces.
            fields = line.rstrip("\n").split(None, 5)
            if len(fields) == 6 and fields[5].startswith("/"):
                seen.setdefault(fields[5], None)
    return list(seen)


def loaded_nccl() -> List[str]:
    """Evidence that NCCL is loaded in this process: library paths, or a module name."""
    try:
        paths = mapped_files()
    except OSError:
        paths = []
    evidence = [
        path
        for path in paths
        if _NCCL_LIBRARY.match(os.path.basename(path))
        or os.path.basename(path) in _NCCL_CARRIERS
    ]
    # /proc can be hidden (some sandboxes); an imported torch.cuda.nccl is proof enough.
    if not evidence and "torch.cuda.nccl" in sys.modules:
        evidence.append("python module torch.cuda.nccl")
    return evidence


def is_mapped(path: str, pid: str = "self") -> bool:
    """Whether the file at `path` is mapped into process `pid`."""
    real = os.path.realpath(path)
    return any(os.path.realpath(mapped) == real for mapped in mapped_files(pid))
