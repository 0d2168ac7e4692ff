"""Shared fixtures for the tests of the installed flashccl package.

These tests exercise the package as a user gets it: installed from the wheel into a fresh virtual
environment (run_wheel_test.sh does that). Importing python/flashccl from the checkout would test
a package without its native parts, so that is refused up front.
"""

import os
import subprocess
import sys

import pytest

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Variables enable() may set; each test starts with none of them so results do not depend on the
# shell that ran pytest.
MANAGED_VARIABLES = (
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "FLASHCCL_NCCL_LIBRARY",
    "VLLM_NCCL_SO_PATH",
    "SGLANG_NCCL_SO_PATH",
    "NCCL_TUNER_PLUGIN",
    "NCCL_NET_PLUGIN",
    "NCCL_DEBUG",
    "FLASHCCL_DEBUG",
)


def pytest_configure(config):
    import flashccl

    package_dir = os.path.realpath(os.path.dirname(flashccl.__file__))
    if package_dir.startswith(os.path.realpath(REPO_ROOT) + os.sep):
        pytest.exit(
            f"flashccl was imported from the source tree ({package_dir}); these tests need the "
            "installed wheel: run tests/python/run_wheel_test.sh",
            returncode=2,
        )


@pytest.fixture
def clean_environ():
    """os.environ without the variables flashccl manages; restored whole afterwards (enable()
    writes os.environ directly, which monkeypatch alone would not undo)."""
    saved = dict(os.environ)
    for name in MANAGED_VARIABLES:
        os.environ.pop(name, None)
    try:
        yield os.environ
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture
def library():
    import flashccl

    return os.path.join(flashccl.ld_library_path(), "libflashccl.so")


def run_python(code, env=None, timeout=60):
    """Run `python -c code` in a child with this interpreter; returns the CompletedProcess."""
    return subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def fake_site_dir(root, with_torch=False, with_nccl=True):
    """A site-packages-like folder holding nvidia/nccl/lib/libnccl.so.2 (an empty file: nothing
    loads it) and, if asked, a torch package beside it."""
    root.mkdir(parents=True)
    if with_nccl:
        lib_dir = root / "nvidia" / "nccl" / "lib"
        lib_dir.mkdir(parents=True)
        (lib_dir / "libnccl.so.2").write_bytes(b"")
    if with_torch:
        (root / "torch").mkdir()
        (root / "torch" / "__init__.py").write_text("raise ImportError('flashccl must not import torch')\n")
    return root
