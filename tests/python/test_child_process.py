"""After enable(), processes started from this one have libflashccl.so mapped."""

import os
import subprocess
import sys
import time

import flashccl
import pytest


def _mapped_files(pid):
    with open(f"/proc/{pid}/maps", encoding="utf-8") as maps:
        return {os.path.realpath(fields[5].strip()) for fields in (line.split(None, 5) for line in maps)
                if len(fields) == 6}


def _start_and_read_maps(command):
    """Start `command`, return the files it has mapped once the dynamic linker is done, and its
    stderr. ld.so maps LD_PRELOAD objects before the program's own libraries, so once libc is
    mapped the preloads are in (reading earlier races with exec and start-up)."""
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            mapped = _mapped_files(child.pid)
            if any(os.path.basename(path).startswith("libc.so") for path in mapped):
                break
            assert child.poll() is None, f"{command} exited early"
            assert time.monotonic() < deadline, f"{command} never mapped libc"
            time.sleep(0.01)
    finally:
        child.kill()
        _, stderr = child.communicate(timeout=30)
    return mapped, stderr


SLEEPERS = {
    "python": [sys.executable, "-c", "import time; time.sleep(60)"],
    # Not Python at all: LD_PRELOAD is the dynamic linker's business, for any program.
    "sleep": ["sleep", "60"],
}


@pytest.mark.parametrize("kind", sorted(SLEEPERS))
def test_child_started_after_enable_maps_the_library(clean_environ, library, kind):
    flashccl.enable()
    mapped, stderr = _start_and_read_maps(SLEEPERS[kind])
    assert os.path.realpath(library) in mapped
    assert "ld.so" not in stderr, stderr  # e.g. "object ... cannot be preloaded"


def test_child_started_before_enable_does_not(clean_environ, library):
    mapped, _ = _start_and_read_maps(SLEEPERS["python"])
    assert os.path.realpath(library) not in mapped


def test_existing_preload_still_loads_in_the_child(clean_environ, library, tmp_path):
    # Another library the user preloads keeps working beside flashccl.
    other = tmp_path / "libother_preload.so"
    source = tmp_path / "other.c"
    source.write_text("int other_preload_marker(void) { return 42; }\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(other), str(source)], check=True)
    os.environ["LD_PRELOAD"] = str(other)
    flashccl.enable()
    mapped, _ = _start_and_read_maps(SLEEPERS["sleep"])
    assert os.path.realpath(library) in mapped
    assert os.path.realpath(str(other)) in mapped
