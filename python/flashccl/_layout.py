"""Where the native parts sit inside the installed package.

The wheel's CMake install puts them beside this file (see cmake/install.cmake):
    flashccl/lib/libflashccl.so              the NCCL-compatible library (LD_PRELOAD it)
    flashccl/lib/libnccl-*-*.so              NCCL plugins, when the build made them (NCCL loads
                                             them by path: NCCL_NET_PLUGIN, NCCL_TUNER_PLUGIN)
    flashccl/bin/flashccl                    the command-line tool (RPATH $ORIGIN/../lib)
    flashccl/share/flashccl/{algorithms,topologies}   data the library finds relative to itself
"""

from __future__ import annotations

import os
from typing import Dict, List

# Resolved once: LD_PRELOAD entries and /proc/<pid>/maps both name real paths, and comparing
# like with like is what keeps enable() from adding a second copy through a symlinked venv.
PACKAGE_DIR = os.path.realpath(os.path.dirname(os.path.abspath(__file__)))
LIB_DIR = os.path.join(PACKAGE_DIR, "lib")
BIN_DIR = os.path.join(PACKAGE_DIR, "bin")

LIBRARY_NAME = "libflashccl.so"
TOOL_NAME = "flashccl"

# Plugins NCCL loads itself, by the variable that names them. Only files present are used:
# a wheel built before a plugin existed simply lacks it.
PLUGIN_VARIABLES = {
    "libnccl-net-softbond.so": "NCCL_NET_PLUGIN",
}

# The tuner plugin changes NCCL's own algorithm choices from a table measured on the machine
# (docs/tuner.md): asked for with enable(tuner=True), never set up just because it is there.
TUNER_FILE_NAME = "libnccl-tuner-flashccl.so"
TUNER_VARIABLE = "NCCL_TUNER_PLUGIN"


class NativePartMissing(FileNotFoundError):
    """The package was imported without the native files a wheel carries."""


def _missing(path: str, what: str) -> NativePartMissing:
    return NativePartMissing(
        f"flashccl: {what} is missing: {path}\n"
        f"This flashccl package ({PACKAGE_DIR}) has no native parts. Install the wheel "
        "(pip install flashccl-*.whl, or pip install . from the source tree) rather than "
        "importing python/flashccl from a checkout."
    )


def library_file() -> str:
    """Absolute path of libflashccl.so; raises NativePartMissing if the package has none."""
    path = os.path.join(LIB_DIR, LIBRARY_NAME)
    if not os.path.isfile(path):
        raise _missing(path, "the flashccl library")
    return path


def plugin_files() -> Dict[str, str]:
    """{NCCL variable: absolute plugin path} for each plugin library this package carries."""
    found = {}
    for file_name, variable in PLUGIN_VARIABLES.items():
        path = os.path.join(LIB_DIR, file_name)
        if os.path.isfile(path):
            found[variable] = path
    return found


def tuner_file() -> str:
    """Absolute path of the tuner plugin; raises NativePartMissing if the package has none."""
    path = os.path.join(LIB_DIR, TUNER_FILE_NAME)
    if not os.path.isfile(path):
        raise _missing(path, "the NCCL tuner plugin")
    return path


def preload_files() -> List[str]:
    """What goes into LD_PRELOAD: the library first, then the plugins present."""
    return [library_file(), *plugin_files().values()]


def tool_file() -> str:
    """Absolute path of the `flashccl` command; raises NativePartMissing if absent."""
    path = os.path.join(BIN_DIR, TOOL_NAME)
    if not os.access(path, os.X_OK):
        raise _missing(path, "the flashccl command")
    return path
