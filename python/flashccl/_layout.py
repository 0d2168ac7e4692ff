"""Where the native parts are: inside the installed package, or in a CMake build tree.

The wheel's CMake install puts them beside this file (see cmake/install.cmake):
    flashccl/lib/libflashccl.so              the NCCL-compatible library (LD_PRELOAD it)
    flashccl/lib/libnccl-*-*.so              NCCL plugins, when the build made them (NCCL loads
                                             them by path: NCCL_NET_PLUGIN, NCCL_TUNER_PLUGIN)
    flashccl/bin/flashccl                    the command-line tool (RPATH $ORIGIN/../lib)
    flashccl/share/flashccl/{algorithms,topologies}   data the library finds relative to itself

From a source checkout (PYTHONPATH=python) there is no lib/ here; the parts come from a build tree
instead: FLASHCCL_BUILD_DIR if set, else <checkout>/build. A build tree keeps the library in
src/, the command in tools/ and each plugin in plugins/<name>/.
"""

from __future__ import annotations

import os
from typing import List, NamedTuple

# Resolved once: LD_PRELOAD entries and /proc/<pid>/maps both name real paths, and comparing
# like with like is what keeps enable() from adding a second copy through a symlinked venv.
PACKAGE_DIR = os.path.realpath(os.path.dirname(os.path.abspath(__file__)))
SOURCE_ROOT = os.path.dirname(os.path.dirname(PACKAGE_DIR))  # meaningful in a checkout only

LIBRARY_NAME = "libflashccl.so"
TOOL_NAME = "flashccl"
BUILD_DIR_VARIABLE = "FLASHCCL_BUILD_DIR"

# NCCL's plugins, each asked for by name and loaded by NCCL from the path in its variable (never
# preloaded: no other process needs them). Neither is set up just because it is there: the tuner
# changes NCCL's own choices from a table measured on the machine (enable(tuner=True),
# docs/tuner.md); the softbond net plugin replaces NCCL's own IB / socket transports for every
# communicator (enable(net_plugin=True), docs/net-plugin.md).
TUNER_FILE_NAME = "libnccl-tuner-flashccl.so"
TUNER_VARIABLE = "NCCL_TUNER_PLUGIN"
NET_PLUGIN_NAME = "libnccl-net-softbond.so"
NET_PLUGIN_VARIABLE = "NCCL_NET_PLUGIN"
# Where a build tree makes each plugin, below the build folder.
_BUILD_TREE_PLUGIN_DIRS = {TUNER_FILE_NAME: "plugins/tuner", NET_PLUGIN_NAME: "plugins/net-softbond"}


class NativePartMissing(FileNotFoundError):
    """Neither the package nor a build tree has the native files."""


class Layout(NamedTuple):
    library: str  # libflashccl.so
    tool: str  # the flashccl command
    plugin_dir: str  # where libnccl-*.so would be ("" in a build tree: one folder each)
    origin: str  # "the installed package" / "build tree <dir>", for messages
    build_dir: str  # the build tree, or ""


def in_checkout() -> bool:
    return (os.path.basename(os.path.dirname(PACKAGE_DIR)) == "python"
            and os.path.isfile(os.path.join(SOURCE_ROOT, "pyproject.toml")))


def _package_layout() -> Layout:
    lib = os.path.join(PACKAGE_DIR, "lib")
    return Layout(os.path.join(lib, LIBRARY_NAME), os.path.join(PACKAGE_DIR, "bin", TOOL_NAME), lib,
                  "the installed package", "")


def _build_tree_layout(build_dir: str) -> Layout:
    build_dir = os.path.realpath(build_dir)
    return Layout(os.path.join(build_dir, "src", LIBRARY_NAME), os.path.join(build_dir, "tools", TOOL_NAME),
                  "", f"build tree {build_dir}", build_dir)


def _missing(what: str, path: str) -> NativePartMissing:
    if in_checkout():
        build = os.environ.get(BUILD_DIR_VARIABLE)
        where = (f"{BUILD_DIR_VARIABLE}={build}" if build
                 else f"the build tree beside this checkout ({os.path.join(SOURCE_ROOT, 'build')})")
        hint = (f"Build it (bash start.sh, or cmake -S {SOURCE_ROOT} -B build && cmake --build build), "
                f"point {BUILD_DIR_VARIABLE} at a build folder, or pip install the wheel.")
        return NativePartMissing(f"flashccl: {what} is missing: {path}\n"
                                 f"This is a source checkout ({SOURCE_ROOT}); its native parts come from "
                                 f"{where}. {hint}")
    return NativePartMissing(f"flashccl: {what} is missing: {path}\n"
                             f"This flashccl package ({PACKAGE_DIR}) has no native parts. Install the "
                             "wheel (pip install flashccl-*.whl, or pip install . from the source tree).")


def layout() -> Layout:
    """The layout in use: the package's own files when it has them, else (in a checkout) the
    build tree FLASHCCL_BUILD_DIR names or <checkout>/build."""
    package = _package_layout()
    if os.path.isfile(package.library) or not in_checkout():
        return package
    build = os.environ.get(BUILD_DIR_VARIABLE) or os.path.join(SOURCE_ROOT, "build")
    return _build_tree_layout(build)


def library_file() -> str:
    """Absolute path of libflashccl.so; raises NativePartMissing if there is none."""
    path = layout().library
    if not os.path.isfile(path):
        raise _missing("the flashccl library", path)
    return path


def _plugin_path(file_name: str) -> str:
    here = layout()
    if here.build_dir:
        return os.path.join(here.build_dir, _BUILD_TREE_PLUGIN_DIRS[file_name], file_name)
    return os.path.join(here.plugin_dir, file_name)


def _plugin_file(file_name: str, what: str) -> str:
    path = _plugin_path(file_name)
    if not os.path.isfile(path):
        raise _missing(what, path)
    return path


def tuner_file() -> str:
    """Absolute path of the tuner plugin; raises NativePartMissing if there is none."""
    return _plugin_file(TUNER_FILE_NAME, "the NCCL tuner plugin")


def net_plugin_file() -> str:
    """Absolute path of libnccl-net-softbond.so; raises NativePartMissing if there is none."""
    return _plugin_file(NET_PLUGIN_NAME, "the softbond net plugin")


def library_dirs() -> List[str]:
    """Folders for LD_LIBRARY_PATH: the library's, then each plugin's present in another folder
    (NCCL_TUNER_PLUGIN=flashccl finds libnccl-tuner-flashccl.so on the library path)."""
    dirs = [os.path.dirname(library_file())]
    for file_name in (TUNER_FILE_NAME, NET_PLUGIN_NAME):
        path = _plugin_path(file_name)
        if os.path.isfile(path) and os.path.dirname(path) not in dirs:
            dirs.append(os.path.dirname(path))
    return dirs


def preload_files() -> List[str]:
    """What goes into LD_PRELOAD: the library. NCCL opens its plugins by path."""
    return [library_file()]


def tool_file() -> str:
    """Absolute path of the `flashccl` command; raises NativePartMissing if absent."""
    path = layout().tool
    if not os.access(path, os.X_OK):
        raise _missing("the flashccl command", path)
    return path


