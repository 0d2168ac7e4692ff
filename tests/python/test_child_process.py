"""After enable(), processes started from this one have libflashccl.so mapped."""

import os
import subprocess
import sys

import flashccl
import pytest


def _mapped_files(pid):
    with open(f"/proc/{pid}/maps", encoding="utf-8") as maps:
        return {line.split(None, 5)[5].strip() for line in maps if len(line.split(None, 5)) == 6}


def _start_and_read_maps(command):
    """Start `command` (which prints 'ready' once running), return its mapped files and stderr."""
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        mapped = _mapped_files(child.pid)
    finally:
        child.kill()
        _, stderr = child.communicate(timeout=30)
    return mapped, stderr


@pytest.mark.parametrize("kind", ["python", "shell"])
def test_child_started_after_enable_maps_the_library(clean_environ, library, kind):
    flashccl.enable()
    if kind == "python":
        command = [sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(60)"]
    else:  # a program that is not Python at all: LD_PRELOAD is the dynamic linker's business
        command = ["/bin/sh", "-c", "echo ready; exec sleep 60"]
    mapped, stderr = _start_and_read_maps(command)
    assert os.path.realpath(library) in {os.path.realpath(path) for path in mapped}
    assert "ld.so" not in stderr, stderr  # e.g. "object ... cannot be preloaded"


def test_child_started_before_enable_does_not(clean_environ, library):
    command = [sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(60)"]
    mapped, _ = _start_and_read_maps(command)
    assert os.path.realpath(library) not in {os.path.realpath(path) for path in mapped}


def test_existing_preload_still_loads_in_the_child(clean_environ, library, tmp_path):
    # Another library the user preloads keeps working beside flashccl.
    other = tmp_path / "libother_preload.so"
    source = tmp_path / "other.c"
    source.write_text("int other_preload_marker(void) { return 42; }\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(other), str(source)], check=True)
    os.environ["LD_PRELOAD"] = str(other)
    flashccl.enable()
    mapped, _ = _start_and_read_maps(["/bin/sh", "-c", "echo ready; exec sleep 60"])
    real = {os.path.realpath(path) for path in mapped}
    assert os.path.realpath(library) in real
    assert os.path.realpath(str(other)) in real
