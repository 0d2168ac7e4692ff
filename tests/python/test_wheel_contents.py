"""The wheel file itself (FLASHCCL_WHEEL, set by run_wheel_test.sh): tag, layout, metadata."""

import os
import zipfile

import pytest
from conftest import REPO_ROOT

WHEEL = os.environ.get("FLASHCCL_WHEEL")
pytestmark = pytest.mark.skipif(not WHEEL, reason="FLASHCCL_WHEEL names no wheel (run_wheel_test.sh sets it)")


@pytest.fixture(scope="module")
def wheel():
    with zipfile.ZipFile(WHEEL) as archive:
        yield archive


def _version():
    with open(os.path.join(REPO_ROOT, "VERSION"), encoding="utf-8") as f:
        return f.readline().strip()


def test_file_name_says_any_python3_on_linux_x86_64():
    assert os.path.basename(WHEEL) == f"flashccl-{_version()}-py3-none-linux_x86_64.whl"


def test_wheel_metadata_tag_and_no_runtime_dependencies(wheel):
    dist_info = f"flashccl-{_version()}.dist-info"
    tags = [line for line in wheel.read(f"{dist_info}/WHEEL").decode().splitlines() if line.startswith("Tag:")]
    assert tags == ["Tag: py3-none-linux_x86_64"]
    metadata = wheel.read(f"{dist_info}/METADATA").decode()
    assert f"Version: {_version()}" in metadata.splitlines()
    assert not [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]


def test_native_parts_are_in_the_package_folder(wheel):
    names = set(wheel.namelist())
    for required in ("flashccl/__init__.py", "flashccl/__main__.py",
                     "flashccl/lib/libflashccl.so", "flashccl/lib/libnccl-tuner-flashccl.so",
                     "flashccl/bin/flashccl"):
        assert required in names, required


def test_one_copy_of_the_library(wheel):
    # Wheels cannot hold symlinks; a versioned .so chain would be stored as full copies.
    copies = [name for name in wheel.namelist() if os.path.basename(name).startswith("libflashccl.so")]
    assert copies == ["flashccl/lib/libflashccl.so"]


def test_no_files_with_build_machine_paths(wheel):
    # pkg-config files carry an absolute prefix that does not exist where the wheel is installed.
    assert not [name for name in wheel.namelist() if name.endswith(".pc")]


def test_tool_is_executable_in_the_archive(wheel):
    mode = wheel.getinfo("flashccl/bin/flashccl").external_attr >> 16
    assert mode & 0o111, oct(mode)
