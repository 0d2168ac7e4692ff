"""The wheel file itself (FLASHCCL_WHEEL, set by run_wheel_test.sh): tag, layout, metadata."""

import os
import re
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


MANYLINUX = re.compile(r"^py3-none-manylinux_2_(\d+)_x86_64$")


def test_file_name_says_any_python3_on_manylinux_x86_64():
    # Package indexes refuse linux_x86_64; auditwheel repair gave it a manylinux tag.
    prefix = f"flashccl-{_version()}-"
    name = os.path.basename(WHEEL)
    assert name.startswith(prefix) and name.endswith(".whl"), name
    assert MANYLINUX.match(name[len(prefix):-len(".whl")]), name


def test_wheel_metadata_tag_and_no_runtime_dependencies(wheel):
    dist_info = f"flashccl-{_version()}.dist-info"
    tags = [line[len("Tag: "):] for line in wheel.read(f"{dist_info}/WHEEL").decode().splitlines()
            if line.startswith("Tag:")]
    assert tags and all(MANYLINUX.match(tag) for tag in tags), tags
    metadata = wheel.read(f"{dist_info}/METADATA").decode()
    assert f"Version: {_version()}" in metadata.splitlines()
    # Only the optional plot extra; the wheel itself installs offline.
    requirements = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert all("extra ==" in line for line in requirements), requirements


def test_repair_grafted_no_library(wheel):
    # libflashccl.so is preloaded into other people's processes: it may need glibc, libstdc++ and
    # libgcc only, so auditwheel must have had nothing to copy in (it would add flashccl.libs/).
    assert not [name for name in wheel.namelist() if ".libs/" in name]


def test_plugins_are_inside_when_the_source_has_them(wheel):
    names = set(wheel.namelist())
    for folder, library in (("tuner", "libnccl-tuner-flashccl.so"), ("net-softbond", "libnccl-net-softbond.so")):
        if os.path.isfile(os.path.join(REPO_ROOT, "plugins", folder, "CMakeLists.txt")):
            assert f"flashccl/lib/{library}" in names, library


def test_native_parts_are_in_the_package_folder(wheel):
    names = set(wheel.namelist())
    for required in ("flashccl/__init__.py", "flashccl/__main__.py",
                     "flashccl/lib/libflashccl.so", "flashccl/lib/libnccl-tuner-flashccl.so",
                     "flashccl/bin/flashccl"):
        assert required in names, required


def test_the_net_plugin_is_in_lib(wheel):
    assert "flashccl/lib/libnccl-net-softbond.so" in wheel.namelist()


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
