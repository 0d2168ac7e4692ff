"""python -m flashccl plot TUNE.json: a flashccl tune -J record becomes its speedup plot (one line per
collective, the 1.0 line); a tune record without selection sizes gets one clear line."""

import json
import struct
import subprocess
import sys

import pytest


def _tune_record(selection=None):
    """The part of a flashccl tune -J record the plot reads (tools/tune/tune_record.cc)."""
    if selection is None:
        selection = []
        for collective, speedup in (("allreduce", 1.6), ("allgather", 0.9)):
            sizes = [{"bytes": 1 << e, "nccl_us": 10.0, "flashccl_algorithm": collective + "_direct",
                      "flashccl_us": 10.0 / speedup, "speedup": speedup, "spread_percent": 3.0,
                      "row": collective + "_direct" if speedup > 1.1 else "nccl", "why": ""}
                     for e in range(10, 21, 2)]
            selection.append({"collective": collective, "ranks": 2, "sizes": sizes})
    return {"tool": "flashccl tune", "schema": 1, "selection": selection}


def _plot(*args):
    return subprocess.run([sys.executable, "-m", "flashccl", "plot", *args], capture_output=True, text=True,
                          timeout=120)


def test_a_tune_record_gets_the_speedup_plot(tmp_path):
    pytest.importorskip("matplotlib")
    record = tmp_path / "tune.json"
    record.write_text(json.dumps(_tune_record()))
    result = _plot(str(record))
    assert result.returncode == 0, result.stderr
    out = tmp_path / "tune-speedup.png"
    assert result.stdout.strip() == f"flashccl plot: wrote {out}"
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width > 500 and height > 300


def test_a_tune_record_without_selection_is_one_line(tmp_path):
    record = tmp_path / "tune.json"
    record.write_text(json.dumps(_tune_record(selection=[])))
    result = _plot(str(record))
    assert result.returncode == 1
    assert result.stderr.strip().startswith("flashccl plot: ") and "no selection sizes" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
