"""python -m flashccl: env, run, version, and forwarding to the flashccl tool."""

import os
import shutil
import subprocess
import sys

import flashccl
from conftest import MANAGED_VARIABLES, fake_site_dir


def _clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in MANAGED_VARIABLES}
    env.update(extra)
    return env


def _flashccl(*args, env=None):
    return subprocess.run([sys.executable, "-m", "flashccl", *args], env=env or _clean_env(),
                          capture_output=True, text=True, timeout=120)


def test_env_prints_export_lines_a_shell_can_eval(tmp_path):
    # A fake torch first on PYTHONPATH: its nvidia/nccl wins over any real one installed.
    site = fake_site_dir(tmp_path / "site", with_torch=True)
    env = _clean_env(LD_PRELOAD="/opt/x/libkeep.so", PYTHONPATH=str(site))
    script = (f'eval "$({sys.executable} -m flashccl env)"; '
              'printf "%s\\n" "$LD_PRELOAD" "$LD_LIBRARY_PATH" "$FLASHCCL_NCCL_LIBRARY"')
    shell = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, check=True)
    preload, library_path, nccl = shell.stdout.splitlines()
    assert preload.split(":") == [*flashccl.lib_paths().split(":"), "/opt/x/libkeep.so"]
    assert library_path == flashccl.ld_library_path()
    assert nccl == str(site / "nvidia" / "nccl" / "lib" / "libnccl.so.2")


def test_env_output_is_only_export_lines():
    result = _flashccl("env", "--debug", "INFO")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines and all(line.startswith("export ") for line in lines)
    assert "export NCCL_DEBUG=INFO" in lines
    assert "export FLASHCCL_DEBUG=INFO" in lines
    assert result.stderr == ""


def test_env_rejects_an_unknown_level():
    result = _flashccl("env", "--debug", "LOUD")
    assert result.returncode != 0
    assert "debug must be one of" in result.stderr


def test_env_tuner_adds_the_tuner_plugin_only_when_asked():
    plain = _flashccl("env")
    tuned = _flashccl("env", "--tuner", "--debug", "WARN")
    assert plain.returncode == 0 and tuned.returncode == 0, plain.stderr + tuned.stderr
    tuner = os.path.join(flashccl.ld_library_path(), "libnccl-tuner-flashccl.so")
    assert "NCCL_TUNER_PLUGIN" not in plain.stdout
    assert f"export NCCL_TUNER_PLUGIN={tuner}" in tuned.stdout.splitlines()
    assert "export NCCL_DEBUG=WARN" in tuned.stdout.splitlines()


def test_run_tuner_sets_the_plugin_for_the_command():
    result = _flashccl("run", "--tuner", "--", sys.executable, "-c",
                       "import os; print(os.environ['NCCL_TUNER_PLUGIN'])")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == os.path.join(flashccl.ld_library_path(), "libnccl-tuner-flashccl.so")


def test_run_starts_the_command_with_flashccl_enabled(library):
    probe = ("import os; print(os.environ['LD_PRELOAD']); "
             "print(any(l.rstrip().endswith('/libflashccl.so') for l in open('/proc/self/maps')))")
    for separator in (["--"], []):
        result = _flashccl("run", *separator, sys.executable, "-c", probe)
        assert result.returncode == 0, result.stderr
        preload, mapped = result.stdout.splitlines()
        assert preload.split(":")[0] == library
        assert mapped == "True"
        assert "flashccl: LD_PRELOAD=" in result.stderr


def test_run_passes_debug_and_the_exit_status():
    result = _flashccl("run", "--debug=TRACE", "--", sys.executable, "-c",
                       "import os, sys; print(os.environ['NCCL_DEBUG']); sys.exit(3)")
    assert result.returncode == 3
    assert result.stdout.strip() == "TRACE"


def test_run_reports_a_missing_command():
    result = _flashccl("run", "--", "flashccl-no-such-command")
    assert result.returncode == 127
    assert "flashccl-no-such-command: command not found" in result.stderr


def test_run_needs_a_command():
    result = _flashccl("run")
    assert result.returncode != 0
    assert "usage" in result.stderr


def test_version():
    result = _flashccl("version")
    assert result.returncode == 0
    assert result.stdout.strip() == flashccl.version()


def test_unknown_commands_get_the_tools_own_error():
    result = _flashccl("no-such-subcommand", "--flag")
    assert result.returncode == 2
    assert "flashccl: unknown command 'no-such-subcommand'" in result.stderr


def test_help_lists_our_commands_and_the_tools():
    result = _flashccl("--help")
    assert result.returncode == 0
    assert "run [--debug LEVEL]" in result.stdout
    assert "usage: flashccl <command>" in result.stdout  # the tool's own usage, appended


def test_tool_environment_has_the_library_settings_but_no_preload(tmp_path, monkeypatch):
    from flashccl import _environment

    site = fake_site_dir(tmp_path / "site")
    monkeypatch.setattr(sys, "path", [str(site)])
    env = _environment.tool_environment(_clean_env(LD_PRELOAD="/opt/x/libkeep.so"))
    assert env["LD_PRELOAD"] == "/opt/x/libkeep.so"
    assert env["LD_LIBRARY_PATH"] == flashccl.ld_library_path()
    assert env["FLASHCCL_NCCL_LIBRARY"] == str(site / "nvidia" / "nccl" / "lib" / "libnccl.so.2")


def test_console_script_is_the_same_entry_point():
    script = shutil.which("flashccl", path=os.path.dirname(sys.executable))
    assert script, "pip did not install the flashccl console script next to python"
    result = subprocess.run([script, "version"], env=_clean_env(), capture_output=True, text=True)
    assert result.stdout.strip() == flashccl.version()
