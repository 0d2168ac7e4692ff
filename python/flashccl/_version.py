"""flashccl's version: the VERSION file at the repository root, the one CMake reads too.

An installed wheel carries it as package metadata (scikit-build-core's regex provider reads
VERSION at build time); a source checkout reads the file itself.
"""

from __future__ import annotations

import os

_SOURCE_VERSION_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "VERSION")


def version() -> str:
    if os.path.isfile(_SOURCE_VERSION_FILE):
        with open(_SOURCE_VERSION_FILE, encoding="utf-8") as f:
            return f.readline().strip()
    from importlib.metadata import version as distribution_version

    return distribution_version("flashccl")
