"""The installed package: version, library paths, and the files the wheel put beside it."""

import os
import re
import shutil
import subprocess
import sys

import flashccl
from conftest import REPO_ROOT


def _repo_version():
    with open(os.path.join(REPO_ROOT, "VERSION"), encoding="utf-8") as f:
        return f.readline().strip()


def test_version_comes_from_the_version_file():
    assert flashccl.__version__ == _repo_version()
    assert flashccl.version() == _repo_version()


def test_version_ignores_a_stray_version_file_above_a_target_install(tmp_path):
    # pip install --target DIR puts the package in DIR/flashccl: DIR/../VERSION is not ours.
    target = tmp_path / "site"
    shutil.copytree(os.path.dirname(flashccl.__file__), target / "flashccl")
    shutil.copytree(os.path.dirname(flashccl.__file__) + "-" + flashccl.__version__ + ".dist-info",
                    target / f"flashccl-{flashccl.__version__}.dist-info")
    (tmp_path / "VERSION").write_text("9.9.9\n")
    (tmp_path / "pyproject.toml").write_text("")
    child = subprocess.run([sys.executable, "-c", "import flashccl; print(flashccl.version())"],
                           cwd=str(tmp_path), env=dict(os.environ, PYTHONPATH=str(target)),
                           capture_output=True, text=True)
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == _repo_version()


def test_lib_paths_are_absolute_existing_files_library_first():
    paths = flashccl.lib_paths().split(":")
    assert os.path.basename(paths[0]) == "libflashccl.so"
    for path in paths:
        assert os.path.isabs(path), path
        assert os.path.isfile(path), path


def test_lib_paths_are_inside_the_installed_package():
    package_dir = os.path.realpath(os.path.dirname(flashccl.__file__))
    for path in flashccl.lib_paths().split(":"):
        assert os.path.dirname(path) == os.path.join(package_dir, "lib")


def test_ld_library_path_is_the_folder_holding_the_library():
    folders = flashccl.ld_library_path().split(":")
    assert os.path.isfile(os.path.join(folders[0], "libflashccl.so"))
    for folder in folders:
        assert os.path.isdir(folder)


def test_library_is_an_x86_64_shared_object():
    with open(flashccl.lib_paths().split(":")[0], "rb") as f:
        header = f.read(20)
    assert header[:4] == b"\x7fELF"
    assert header[4] == 2  # 64-bit
    assert int.from_bytes(header[16:18], "little") == 3  # ET_DYN: a shared object
    assert int.from_bytes(header[18:20], "little") == 62  # EM_X86_64


def test_library_exports_the_flashccl_api():
    output = subprocess.run(["nm", "-D", "--defined-only", flashccl.lib_paths().split(":")[0]],
                            capture_output=True, text=True, check=True).stdout
    assert re.search(r" T flashcclVersion$", output, re.MULTILINE), output


def test_tool_finds_the_library_relative_to_itself():
    # bin/flashccl is installed with RUNPATH $ORIGIN/../lib, so it works from any prefix.
    tool = os.path.join(os.path.dirname(flashccl.__file__), "bin", "flashccl")
    assert os.access(tool, os.X_OK)
    dynamic = subprocess.run(["readelf", "-d", tool], capture_output=True, text=True, check=True).stdout
    assert "$ORIGIN/../lib" in dynamic


def test_shipped_data_is_where_the_library_looks_for_it():
    # <dir of libflashccl.so>/../share/flashccl/<kind>/ holds every *.xml of the source tree.
    share = os.path.join(flashccl.ld_library_path(), "..", "share", "flashccl")
    for kind in ("algorithms", "topologies"):
        source = os.path.join(REPO_ROOT, kind)
        shipped = set(os.listdir(os.path.join(share, kind))) if os.path.isdir(os.path.join(share, kind)) else set()
        expected = set()
        if os.path.isdir(source):
            expected = {name for name in os.listdir(source) if name.endswith(".xml")}
        assert expected <= shipped, f"{kind}: missing from the wheel: {sorted(expected - shipped)}"
