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

# NCCL's plugins in this package, each asked for by name and loaded by NCCL from the path in its
# variable (never preloaded: no other process needs them). Neither is set up just because it is
# there: the tuner changes NCCL's own choices from a table measured on the machine
# (enable(tuner=True), docs/tuner.md); the softbond net plugin replaces NCCL's own IB / socket
# transports for every communicator (enable(net_plugin=True), docs/net-plugin.md).
TUNER_FILE_NAME = "libnccl-tuner-flashccl.so"
TUNER_VARIABLE = "NCCL_TUNER_PLUGIN"
NET_PLUGIN_NAME = "libnccl-net-softbond.so"
NET_PLUGIN_VARIABLE = "NCCL_NET_PLUGIN"


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


def _plugin_file(file_name: str, what: str) -> str:
    path = os.path.join(LIB_DIR, file_name)
    if not os.path.isfile(path):
        raise _missing(path, what)
    return path


def tuner_file() -> str:
    """Absolute path of the tuner plugin; raises NativePartMissing if the package has none."""
    return _plugin_file(TUNER_FILE_NAME, "the NCCL tuner plugin")


def net_plugin_file() -> str:
    """Absolute path of libnccl-net-softbond.so; raises NativePartMissing if the package has none."""
    return _plugin_file(NET_PLUGIN_NAME, "the softbond net plugin")


def preload_files() -> List[str]:
    """What goes into LD_PRELOAD: the library. NCCL opens its plugins by path."""
    return [library_file()]


def tool_file() -> str:
    """Absolute path of the `flashccl` command; raises NativePartMissing if absent."""
    path = os.path.join(BIN_DIR, TOOL_NAME)
    if not os.access(path, os.X_OK):
        raise _missing(path, "the flashccl command")
    return path
