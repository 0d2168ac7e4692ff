"""python -m flashccl plot: a perf -J record becomes a picture; bad input and a missing matplotlib
get one clear line each."""

import json
import struct
import subprocess
import sys

import pytest


def _record(results=None):
    """A small schema-2 record, the shape flashccl perf -J writes (tools/perf/report_json.cc)."""
    def library(time_us, busbw):
        return {"time_us": time_us, "algbw_gbps": busbw, "busbw_gbps": busbw, "spread_percent": 4.0,
                "spread": {"min_us": time_us * 0.98, "q1_us": time_us, "median_us": time_us,
                           "q3_us": time_us, "max_us": time_us * 1.02},
                "samples_us": [time_us] * 3}

    if results is None:
        results = []
        for collective in ("allreduce", "allgather"):
            for exponent in range(3, 21, 4):
                size = 1 << exponent
                for in_place in (False, True):
                    results.append({"collective": collective, "size_bytes": size, "count": size // 4,
                                    "dtype": "float", "op": "sum" if collective == "allreduce" else "none",
                                    "root": -1, "in_place": in_place, "cycle": 0,
                                    "nccl": library(10.0 + size / 1e5, size / 1e4),
                                    "flashccl": library(5.0 + size / 2e5, size / 5e3),
                                    "speedup": 1.8, "speedup_min": 1.6, "speedup_max": 2.0, "checked": True,
                                    "wrong": 0, "check_rule": "bitwise", "algorithm": "allreduce_oneshot"})
    return {"tool": "flashccl perf", "schema": 2, "complete": True, "flashccl_version": "0.1.0",
            "flashccl_commit": "abc123", "nccl_version": "2.28.9", "nccl_library": "/x/libnccl.so.2",
            "date": "2026-12-01 10:00:00 UTC", "host": "h", "machine": "2 x H200", "command": "flashccl perf",
            "ranks": 2, "results": results}


def _plot(*args, env=None):
    return subprocess.run([sys.executable, "-m", "flashccl", "plot", *args], capture_output=True, text=True,
                          timeout=120, env=env)


def _png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height, len(data)


def test_plots_a_record_next_to_it(tmp_path):
    pytest.importorskip("matplotlib")  # run_wheel_test.sh installs it; without it the next test covers
    record = tmp_path / "run.json"
    record.write_text(json.dumps(_record()))
    result = _plot(str(record))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"flashccl plot: wrote {tmp_path / 'run.png'}"
    width, height, size = _png_size(tmp_path / "run.png")
    assert (width, height) == (1600, 1200)  # three rows, a column per placement, 16 x 12 inches at 100 dpi
    assert 20_000 < size < 900_000, size
    merged = _plot(str(record), "--placements", "merged", "-o", str(tmp_path / "merged.png"))
    assert merged.returncode == 0, merged.stderr
    assert _png_size(tmp_path / "merged.png")[:2] == (1000, 1200)  # one column
    only_in = _plot(str(record), "--placements", "in", "-o", str(tmp_path / "in.png"))
    assert only_in.returncode == 0, only_in.stderr


def test_output_file_and_many_series(tmp_path):
    pytest.importorskip("matplotlib")
    record = tmp_path / "run.json"
    rows = _record()["results"]
    for row in rows[::2]:
        row["dtype"] = "bfloat16"  # a second datatype: series split by dtype too
    record.write_text(json.dumps(_record(rows)))
    result = _plot(str(record), "-o", str(tmp_path / "elsewhere.png"))
    assert result.returncode == 0, result.stderr
    _png_size(tmp_path / "elsewhere.png")


def test_series_are_split_only_by_what_varies():
    from flashccl import _plot as plot_module

    lines = plot_module.series(_record())
    assert list(lines) == ["allreduce out-of-place", "allreduce in-place", "allgather out-of-place",
                           "allgather in-place"]
    assert [r["size_bytes"] for r in lines["allreduce in-place"]] == [8, 128, 2048, 32768, 524288]


def test_placements_split_merge_or_pick():
    from flashccl import _plot as plot_module

    record = _record()
    split = plot_module.panels(record)
    assert list(split) == ["out-of-place", "in-place"]
    assert list(split["in-place"]) == ["allreduce", "allgather"]
    merged = plot_module.panels(record, "merged")
    assert list(merged) == ["both placements, mean"]
    point = merged["both placements, mean"]["allreduce"][0]
    assert point["size_bytes"] == 8
    assert point["flashccl"]["time_us"] == record["results"][0]["flashccl"]["time_us"]
    assert list(plot_module.panels(record, "out")) == ["out-of-place"]
    only_out = dict(record, results=[r for r in record["results"] if not r["in_place"]])
    assert list(plot_module.panels(only_out)) == ["out-of-place"]
    with pytest.raises(plot_module.PlotError, match="no in-place results"):
        plot_module.panels(only_out, "in")


def _shipped_perf_records():
    import glob
    import os

    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "results")
    records = []
    for path in sorted(glob.glob(os.path.join(root, "*.json"))):
        with open(path, encoding="utf-8") as f:
            if json.load(f).get("tool") == "flashccl perf":
                records.append(path)
    return records


def test_every_shipped_record_plots(tmp_path):
    """bench/results/ holds schema-1 records (no "schema" field, "all_reduce"): each one plots."""
    pytest.importorskip("matplotlib")
    from flashccl import _plot as plot_module

    records = _shipped_perf_records()
    if not records:
        pytest.skip("no bench/results beside this test (installed elsewhere)")
    for path in records:
        record = plot_module.load_record(path)
        assert plot_module.record_schema(json.load(open(path, encoding="utf-8"))) in (1, 2)
        assert {r["collective"] for r in record["results"]} <= {"allreduce", "allgather", "reducescatter"}
        out = tmp_path / "shipped.png"
        result = _plot(path, "-o", str(out))
        assert result.returncode == 0, result.stderr
        _png_size(out)


def test_a_schema_1_record_is_read(tmp_path):
    from flashccl import _plot as plot_module

    old = _record()
    del old["schema"], old["flashccl_commit"]
    for r in old["results"]:
        r["collective"] = {"allreduce": "all_reduce", "allgather": "all_gather"}[r["collective"]]
        del r["cycle"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    lines = plot_module.series(plot_module.load_record(str(path)))
    assert list(lines)[0] == "allreduce out-of-place"


def test_not_a_record(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"tool": "something else"}))
    result = _plot(str(bad))
    assert result.returncode == 1
    assert result.stderr == (f"flashccl plot: {bad} is not a flashccl perf record "
                             "(flashccl perf -J FILE writes one)\n")
    future = tmp_path / "future.json"
    future.write_text(json.dumps(dict(_record(), schema=7)))
    result = _plot(str(future))
    assert result.returncode == 1
    assert result.stderr == (f"flashccl plot: {future} is a flashccl perf record of schema 7; this flashccl "
                             "reads schemas 1 and 2\n")
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{")
    assert "is not JSON" in _plot(str(garbage)).stderr


def test_usage_error_is_one_line_with_status_2():
    result = _plot("--bogus")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("flashccl plot: "), result.stderr


def test_without_matplotlib_it_says_how_to_get_it(tmp_path):
    shadow = tmp_path / "shadow"
    (shadow / "matplotlib").mkdir(parents=True)
    (shadow / "matplotlib" / "__init__.py").write_text("raise ImportError('no matplotlib here')\n")
    record = tmp_path / "run.json"
    record.write_text(json.dumps(_record()))
    import os

    result = _plot(str(record), env=dict(os.environ, PYTHONPATH=str(shadow)))
    assert result.returncode == 1
    assert "needs matplotlib, which is not installed here: pip install matplotlib" in result.stderr
    assert "Traceback" not in result.stderr
