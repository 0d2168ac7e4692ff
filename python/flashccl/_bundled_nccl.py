"""Find the NCCL that PyTorch would load, without importing torch.

PyTorch wheels do not use the system's libnccl.so.2: libtorch_cuda.so carries an RPATH to
`site-packages/nvidia/nccl/lib` (the nvidia-nccl-cu* wheel) and loads it in a local scope, where
the preloaded flashccl cannot see it by dlsym(RTLD_NEXT). Naming that file in
FLASHCCL_NCCL_LIBRARY makes flashccl forward to the very NCCL the job would have used, instead of
loading a second, different one.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Iterable, Optional

_RELATIVE_PATH = os.path.join("nvidia", "nccl", "lib", "libnccl.so.2")


def _in_site_dir(site_dir: str) -> Optional[str]:
    candidate = os.path.join(site_dir, _RELATIVE_PATH)
    return os.path.abspath(candidate) if os.path.isfile(candidate) else None


def _beside_torch() -> Optional[str]:
    # find_spec on a top-level name locates the package without running its __init__.
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    for torch_dir in spec.submodule_search_locations:
        # torch/lib/libtorch_cuda.so's RPATH is $ORIGIN/../../nvidia/nccl/lib: the same site dir.
        found = _in_site_dir(os.path.dirname(os.path.abspath(torch_dir)))
        if found:
            return found
    return None


def find_bundled_nccl(search_path: Optional[Iterable[str]] = None) -> Optional[str]:
    """Path of the pip-installed libnccl.so.2 PyTorch would load, or None.

    The copy beside an installed torch wins (that is the one its RPATH names); otherwise the first
    `nvidia/nccl/lib/libnccl.so.2` along sys.path, which is where torch's own fallback looks.
    """
    found = _beside_torch()
    if found:
        return found
    for entry in sys.path if search_path is None else search_path:
        # An empty entry means the current directory: not a place packages are installed.
        if entry:
            found = _in_site_dir(entry)
            if found:
                return found
    return None
