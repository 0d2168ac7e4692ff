"""python -m flashccl: env, run, version, plot and forwarding to the flashccl tool; the C++ tool's
side of the same command line; a checkout pointed at a build tree."""

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
    # A usage error: one line, exit status 2 (docs/cli.md).
    result = _flashccl("env", "--debug", "LOUD")
    assert result.returncode == 2
    assert result.stderr.startswith("flashccl env: --debug: debug must be one of"), result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stdout == ""


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
    for args in (["run"], ["run", "--"], ["run", "--debug"], ["run", "--debug", "LOUD", "true"]):
        result = _flashccl(*args)
        assert result.returncode == 2, args
        assert result.stderr.startswith("flashccl run: "), result.stderr
        assert result.stderr.endswith("(python -m flashccl --help)\n"), result.stderr
        assert result.stderr.count("\n") == 1, result.stderr


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


def test_env_net_plugin_adds_nccl_net_plugin():
    plain = _flashccl("env")
    assert plain.returncode == 0, plain.stderr
    assert "NCCL_NET_PLUGIN" not in plain.stdout
    with_plugin = _flashccl("env", "--net-plugin")
    assert with_plugin.returncode == 0, with_plugin.stderr
    lines = [line for line in with_plugin.stdout.splitlines() if line.startswith("export NCCL_NET_PLUGIN=")]
    assert len(lines) == 1 and lines[0].endswith("libnccl-net-softbond.so"), with_plugin.stdout


def test_both_entry_points_answer_version():
    from flashccl import _layout

    assert _flashccl("--version").stdout.strip() == flashccl.version()
    tool = subprocess.run([_layout.tool_file(), "--version"], capture_output=True, text=True)
    assert tool.returncode == 0
    assert tool.stdout.strip() == flashccl.version()


def test_the_cpp_tool_names_where_the_python_commands_live():
    from flashccl import _layout

    for command in ("env", "run", "plot"):
        result = subprocess.run([_layout.tool_file(), command], capture_output=True, text=True)
        assert result.returncode == 2
        assert f"python -m flashccl {command}" in result.stderr
    usage = subprocess.run([_layout.tool_file(), "--help"], capture_output=True, text=True).stdout
    for command in ("perf", "plan", "version", "env", "run", "plot"):
        assert f"\n  {command} " in usage, command


def _checkout(tmp_path):
    """A source checkout's python/flashccl (pyproject.toml beside python/), without a build."""
    root = tmp_path / "checkout"
    shutil.copytree(os.path.dirname(flashccl.__file__), root / "python" / "flashccl",
                    ignore=shutil.ignore_patterns("lib", "bin", "share", "include", "__pycache__"))
    (root / "pyproject.toml").write_text("")
    (root / "VERSION").write_text(flashccl.version() + "\n")
    return root


def test_a_checkout_without_a_build_says_what_is_missing(tmp_path):
    root = _checkout(tmp_path)
    env = _clean_env(PYTHONPATH=str(root / "python"))
    result = subprocess.run([sys.executable, "-m", "flashccl", "env"], env=env, capture_output=True, text=True,
                            cwd=str(tmp_path))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert f"This is a source checkout ({root})" in result.stderr
    assert "FLASHCCL_BUILD_DIR" in result.stderr


def test_a_checkout_uses_the_build_tree_it_is_pointed_at(tmp_path):
    from flashccl import _layout

    root = _checkout(tmp_path)
    build = tmp_path / "some-build"
    (build / "src").mkdir(parents=True)
    (build / "tools").mkdir()
    shutil.copy(_layout.library_file(), build / "src" / "libflashccl.so")
    shutil.copy(_layout.tool_file(), build / "tools" / "flashccl")
    for variables in ({"FLASHCCL_BUILD_DIR": str(build)}, {}):
        if not variables:  # no variable: <checkout>/build
            shutil.move(str(build), str(root / "build"))
            build = root / "build"
        env = _clean_env(PYTHONPATH=str(root / "python"), **variables)
        result = subprocess.run([sys.executable, "-m", "flashccl", "env"], env=env, capture_output=True,
                                text=True, cwd=str(tmp_path))
        assert result.returncode == 0, result.stderr
        assert f"export LD_PRELOAD={build / 'src' / 'libflashccl.so'}" in result.stdout.splitlines()
        version = subprocess.run([sys.executable, "-m", "flashccl", "plan", "--help"], env=env,
                                 capture_output=True, text=True, cwd=str(tmp_path))
        assert version.returncode == 0, version.stderr
        assert "Usage: flashccl plan" in version.stdout
