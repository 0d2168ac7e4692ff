"""Where the native parts are: inside the installed package, or in a CMake build tree.

The wheel's CMake install puts them beside this file (see cmake/install.cmake):
    flashccl/lib/libflashccl.so              the NCCL-compatible library (LD_PRELOAD it)
    flashccl/lib/libnccl-*-*.so              NCCL plugins, when the build made them
    flashccl/bin/flashccl                    the command-line tool (RPATH $ORIGIN/../lib)
    flashccl/share/flashccl/{algorithms,topologies}   data the library finds relative to itself

From a source checkout (PYTHONPATH=python) there is no lib/ here; the parts come from a build tree
instead: FLASHCCL_BUILD_DIR if set, else <checkout>/build. A build tree keeps the library in
src/, the command in tools/ and the plugins in lib/.
"""

from __future__ import annotations

import os
from typing import Dict, List, NamedTuple

# Resolved once: LD_PRELOAD entries and /proc/<pid>/maps both name real paths, and comparing
# like with like is what keeps enable() from adding a second copy through a symlinked venv.
PACKAGE_DIR = os.path.realpath(os.path.dirname(os.path.abspath(__file__)))
SOURCE_ROOT = os.path.dirname(os.path.dirname(PACKAGE_DIR))  # meaningful in a checkout only

LIBRARY_NAME = "libflashccl.so"
TOOL_NAME = "flashccl"
BUILD_DIR_VARIABLE = "FLASHCCL_BUILD_DIR"

# Plugins NCCL loads itself, by the variable that names them. Only files present are used:
# a wheel built before a plugin existed simply lacks it.
PLUGIN_VARIABLES = {
    "libnccl-tuner-flashccl.so": "NCCL_TUNER_PLUGIN",
    "libnccl-net-softbond.so": "NCCL_NET_PLUGIN",
}


class NativePartMissing(FileNotFoundError):
    """Neither the package nor a build tree has the native files."""


class Layout(NamedTuple):
    library: str  # libflashccl.so
    tool: str  # the flashccl command
    plugin_dir: str  # where libnccl-*.so would be
    origin: str  # "the installed package" / "build tree <dir>", for messages


def in_checkout() -> bool:
    return (os.path.basename(os.path.dirname(PACKAGE_DIR)) == "python"
            and os.path.isfile(os.path.join(SOURCE_ROOT, "pyproject.toml")))


def _package_layout() -> Layout:
    lib = os.path.join(PACKAGE_DIR, "lib")
    return Layout(os.path.join(lib, LIBRARY_NAME), os.path.join(PACKAGE_DIR, "bin", TOOL_NAME), lib,
                  "the installed package")


def _build_tree_layout(build_dir: str) -> Layout:
    build_dir = os.path.realpath(build_dir)
    return Layout(os.path.join(build_dir, "src", LIBRARY_NAME), os.path.join(build_dir, "tools", TOOL_NAME),
                  os.path.join(build_dir, "lib"), f"build tree {build_dir}")


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


def library_dirs() -> List[str]:
    """Folders for LD_LIBRARY_PATH: the library's, then the plugins' when that is another one."""
    dirs = [os.path.dirname(library_file())]
    plugins = layout().plugin_dir
    if plugin_files() and plugins not in dirs:
        dirs.append(plugins)
    return dirs


def plugin_files() -> Dict[str, str]:
    """{NCCL variable: absolute plugin path} for each plugin library present."""
    found = {}
    for file_name, variable in PLUGIN_VARIABLES.items():
        path = os.path.join(layout().plugin_dir, file_name)
        if os.path.isfile(path):
            found[variable] = path
    return found


def preload_files() -> List[str]:
    """What goes into LD_PRELOAD: the library first, then the plugins present."""
    return [library_file(), *plugin_files().values()]


def tool_file() -> str:
    """Absolute path of the `flashccl` command; raises NativePartMissing if absent."""
    path = layout().tool
    if not os.access(path, os.X_OK):
        raise _missing("the flashccl command", path)
    return path


