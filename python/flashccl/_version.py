"""flashccl's version: the VERSION file at the repository root, the one CMake reads too.

An installed wheel carries it as package metadata (scikit-build-core's regex provider reads
VERSION at build time); a source checkout (<root>/python/flashccl beside <root>/VERSION and
<root>/pyproject.toml) reads the file itself, so it never reports some other installed copy.
"""

from __future__ import annotations

import os

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_SOURCE_ROOT = os.path.dirname(os.path.dirname(_PACKAGE_DIR))


def _in_source_tree() -> bool:
    return (os.path.basename(os.path.dirname(_PACKAGE_DIR)) == "python"
            and os.path.isfile(os.path.join(_SOURCE_ROOT, "VERSION"))
            and os.path.isfile(os.path.join(_SOURCE_ROOT, "pyproject.toml")))


def version() -> str:
    if _in_source_tree():
        with open(os.path.join(_SOURCE_ROOT, "VERSION"), encoding="utf-8") as f:
            return f.readline().strip()
    from importlib.metadata import version as distribution_version

    return distribution_version("flashccl")
