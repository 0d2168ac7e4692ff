"""flashccl: a drop-in, NCCL-compatible collective library, from Python.

    import flashccl
    flashccl.enable()          # processes started from here on run over flashccl
    flashccl.lib_paths()       # what to put in LD_PRELOAD
    flashccl.ld_library_path() # what to add to LD_LIBRARY_PATH

Or without writing Python: `python -m flashccl run torchrun ...`, `eval "$(python -m flashccl env)"`.
"""

from __future__ import annotations

from . import _layout
from ._enable import NcclAlreadyLoadedWarning, enable
from ._layout import NativePartMissing
from ._version import version

__version__ = version()

__all__ = [
    "NativePartMissing",
    "NcclAlreadyLoadedWarning",
    "__version__",
    "enable",
    "ld_library_path",
    "lib_paths",
    "version",
]


def lib_paths() -> str:
    """The libraries to put in LD_PRELOAD, colon-separated, absolute: libflashccl.so (NCCL opens
    its plugins by path itself: see enable(tuner=..., net_plugin=...)). A string, so that the
    shell idiom works:
    export LD_PRELOAD=$(python -c "import flashccl; print(flashccl.lib_paths())"):$LD_PRELOAD"""
    return ":".join(_layout.preload_files())


def ld_library_path() -> str:
    """The folder(s) to add to LD_LIBRARY_PATH, colon-separated: where libflashccl.so and the
    plugins are, for programs linked with -lflashccl and plugins named without a path."""
    return ":".join(_layout.library_dirs())
