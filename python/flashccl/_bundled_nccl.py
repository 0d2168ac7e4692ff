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
from typing import Iterable, List, Optional

_RELATIVE_PATH = os.path.join("nvidia", "nccl", "lib", "libnccl.so.2")


def _in_site_dir(site_dir: str) -> Optional[str]:
    candidate = os.path.join(site_dir, _RELATIVE_PATH)
    return os.path.abspath(candidate) if os.path.isfile(candidate) else None


def _torch_dirs() -> Optional[List[str]]:
    """Folders of the installed torch package, or None when torch is not installed."""
    try:
        # find_spec on a top-level name locates the package without running its __init__.
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)


def find_bundled_nccl(search_path: Optional[Iterable[str]] = None) -> Optional[str]:
    """Path of the pip-installed libnccl.so.2 that PyTorch would load, or None.

    With torch installed, only the copy in torch's own site dir counts: libtorch_cuda.so's RPATH
    ($ORIGIN/../../nvidia/nccl/lib) names that one. A torch without it uses an NCCL of its own
    (linked in, or the system's), and naming some other copy would load a second, different
    NCCL: then the answer is None. Without torch, the first `nvidia/nccl/lib/libnccl.so.2` along
    sys.path (the nvidia-nccl-cu* wheel other frameworks load).
    """
    torch_dirs = _torch_dirs()
    if torch_dirs is not None:
        for torch_dir in torch_dirs:
            found = _in_site_dir(os.path.dirname(os.path.abspath(torch_dir)))
            if found:
                return found
        return None
    for entry in sys.path if search_path is None else search_path:
        # An empty entry means the current directory: not a place packages are installed.
        if entry:
            found = _in_site_dir(entry)
            if found:
                return found
    return None
