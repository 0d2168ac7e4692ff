"""enable(): which variables it sets, that it keeps what was there, and that it is idempotent."""

import os
import sys

import flashccl
import pytest
from conftest import MANAGED_VARIABLES, fake_site_dir, run_python
from flashccl import _layout


def test_sets_preload_and_library_path(clean_environ, library):
    changes = flashccl.enable()
    assert os.environ["LD_PRELOAD"].split(":") == flashccl.lib_paths().split(":")
    assert os.environ["LD_LIBRARY_PATH"] == flashccl.ld_library_path()
    assert changes["LD_PRELOAD"] == os.environ["LD_PRELOAD"]
    assert library in os.environ["LD_PRELOAD"].split(":")


def test_prepends_and_keeps_existing_entries(clean_environ, library):
    os.environ["LD_PRELOAD"] = "/opt/a/libfirst.so /opt/b/libsecond.so"  # ld.so also splits on spaces
    os.environ["LD_LIBRARY_PATH"] = "/opt/lib1:/opt/lib2"
    flashccl.enable()
    assert os.environ["LD_PRELOAD"].split(":") == [
        *flashccl.lib_paths().split(":"), "/opt/a/libfirst.so", "/opt/b/libsecond.so"]
    assert os.environ["LD_LIBRARY_PATH"].split(":") == [flashccl.ld_library_path(), "/opt/lib1", "/opt/lib2"]


def test_second_call_changes_nothing(clean_environ, library, capsys):
    os.environ["LD_PRELOAD"] = "/opt/a/libother.so"
    flashccl.enable(debug="INFO")
    first = {name: os.environ.get(name) for name in MANAGED_VARIABLES}
    capsys.readouterr()
    assert flashccl.enable(debug="INFO") == {}
    assert {name: os.environ.get(name) for name in MANAGED_VARIABLES} == first
    assert os.environ["LD_PRELOAD"].split(":").count(library) == 1
    assert "already enabled" in capsys.readouterr().err


def test_library_reached_through_a_symlink_is_not_added_twice(clean_environ, library, tmp_path):
    link = tmp_path / "libflashccl.so"
    link.symlink_to(library)
    os.environ["LD_PRELOAD"] = str(link)
    flashccl.enable()
    entries = os.environ["LD_PRELOAD"].split(":")
    assert str(link) in entries
    assert library not in entries


def test_prints_one_line_per_variable_set(clean_environ, capsys):
    changes = flashccl.enable(debug="WARN")
    lines = capsys.readouterr().err.splitlines()
    for name, value in changes.items():
        assert [line for line in lines if line.startswith(f"flashccl: {name}={value}")], (name, lines)
    assert len([line for line in lines if line.startswith("flashccl: ") and "=" in line]) == len(changes)


def test_debug_sets_both_logging_variables(clean_environ):
    os.environ["NCCL_DEBUG"] = "WARN"
    flashccl.enable(debug="info")
    assert os.environ["NCCL_DEBUG"] == "INFO"
    assert os.environ["FLASHCCL_DEBUG"] == "INFO"


def test_debug_true_means_info(clean_environ):
    flashccl.enable(debug=True)
    assert os.environ["NCCL_DEBUG"] == "INFO"


def test_without_debug_logging_variables_stay_unset(clean_environ):
    flashccl.enable()
    assert "NCCL_DEBUG" not in os.environ
    assert "FLASHCCL_DEBUG" not in os.environ


def test_rejects_an_unknown_debug_level(clean_environ):
    with pytest.raises(ValueError, match="INFO"):
        flashccl.enable(debug="LOUD")
    assert "LD_PRELOAD" not in os.environ


def test_leaves_other_nccl_settings_alone(clean_environ):
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    os.environ["NCCL_IB_TIMEOUT"] = "23"
    before = {k: v for k, v in os.environ.items() if k not in MANAGED_VARIABLES}
    flashccl.enable()
    after = {k: v for k, v in os.environ.items() if k not in MANAGED_VARIABLES}
    assert after == before


# Each of these sees only the fake site dirs on sys.path, so a real torch or nvidia-nccl wheel in
# the test environment (as on a GPU host) cannot change the answer. flashccl is already imported.

def test_names_pytorch_bundled_nccl(clean_environ, tmp_path, monkeypatch):
    site = fake_site_dir(tmp_path / "site")
    monkeypatch.setattr(sys, "path", [str(site)])
    flashccl.enable()
    assert os.environ["FLASHCCL_NCCL_LIBRARY"] == str(site / "nvidia" / "nccl" / "lib" / "libnccl.so.2")


def test_prefers_the_nccl_beside_torch(clean_environ, tmp_path, monkeypatch):
    # torch's RPATH names the nvidia folder of its own site dir, whatever comes first on sys.path.
    elsewhere = fake_site_dir(tmp_path / "elsewhere")
    with_torch = fake_site_dir(tmp_path / "with_torch", with_torch=True)
    monkeypatch.setattr(sys, "path", [str(elsewhere), str(with_torch)])
    flashccl.enable()
    assert os.environ["FLASHCCL_NCCL_LIBRARY"] == str(with_torch / "nvidia" / "nccl" / "lib" / "libnccl.so.2")
    assert "torch" not in sys.modules


def test_torch_without_a_bundled_nccl_gets_none_from_elsewhere(clean_environ, tmp_path, monkeypatch):
    # Such a torch uses an NCCL of its own; another nvidia/nccl would be a second, different one.
    elsewhere = fake_site_dir(tmp_path / "elsewhere")
    torch_only = fake_site_dir(tmp_path / "torch_only", with_torch=True, with_nccl=False)
    monkeypatch.setattr(sys, "path", [str(elsewhere), str(torch_only)])
    flashccl.enable()
    assert "FLASHCCL_NCCL_LIBRARY" not in os.environ


def test_keeps_the_users_nccl_library(clean_environ, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", [str(fake_site_dir(tmp_path / "site"))])
    os.environ["FLASHCCL_NCCL_LIBRARY"] = "/opt/nccl/lib/libnccl.so.2"
    changes = flashccl.enable()
    assert os.environ["FLASHCCL_NCCL_LIBRARY"] == "/opt/nccl/lib/libnccl.so.2"
    assert "FLASHCCL_NCCL_LIBRARY" not in changes


def test_no_bundled_nccl_no_variable(clean_environ, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    flashccl.enable()
    assert "FLASHCCL_NCCL_LIBRARY" not in os.environ


ALL_PLUGINS = (_layout.TUNER_FILE_NAME, _layout.NET_PLUGIN_NAME)


def _package_copy(tmp_path, monkeypatch, library, plugins):
    """A copy of the package's lib folder holding the library and the named plugin files, made
    the layout in use."""
    lib_dir = tmp_path / "lib"
    lib_dir.mkdir()
    (lib_dir / "libflashccl.so").symlink_to(library)
    for name in plugins:
        (lib_dir / name).write_bytes(b"")
    package = _layout.layout()
    monkeypatch.setattr(_layout, "layout", lambda: _layout.Layout(
        str(lib_dir / "libflashccl.so"), package.tool, str(lib_dir), "a test's copy", ""))
    return lib_dir


@pytest.fixture
def package_with_plugins(tmp_path, monkeypatch, library):
    """The package's lib folder, copied, with every plugin file added."""
    return _package_copy(tmp_path, monkeypatch, library, ALL_PLUGINS)


def test_neither_plugin_by_default(clean_environ, package_with_plugins):
    # Each plugin changes what NCCL does (its choices; its transport): only when asked for.
    flashccl.enable()
    assert "NCCL_NET_PLUGIN" not in os.environ
    assert "NCCL_TUNER_PLUGIN" not in os.environ
    # NCCL opens its plugins by path: only the library is preloaded.
    assert os.environ["LD_PRELOAD"].split(":") == [str(package_with_plugins / "libflashccl.so")]


def test_net_plugin_true_sets_nccl_net_plugin_and_the_library_path(clean_environ, package_with_plugins):
    changes = flashccl.enable(net_plugin=True)
    net_plugin = str(package_with_plugins / "libnccl-net-softbond.so")
    assert os.environ["NCCL_NET_PLUGIN"] == net_plugin
    assert changes["NCCL_NET_PLUGIN"] == net_plugin
    assert os.environ["LD_LIBRARY_PATH"].split(":")[0] == str(package_with_plugins)
    # NCCL dlopens it by that path; it is not preloaded into every process.
    assert net_plugin not in os.environ["LD_PRELOAD"].split(":")


def test_net_plugin_true_without_the_plugin_fails_and_changes_nothing(clean_environ, tmp_path, monkeypatch,
                                                                      library):
    _package_copy(tmp_path, monkeypatch, library, plugins=())
    with pytest.raises(flashccl.NativePartMissing, match="softbond net plugin"):
        flashccl.enable(net_plugin=True)
    assert "LD_PRELOAD" not in os.environ
    assert "NCCL_NET_PLUGIN" not in os.environ


def test_keeps_plugin_choices_the_user_made(clean_environ, package_with_plugins):
    os.environ["NCCL_NET_PLUGIN"] = "none"
    os.environ["NCCL_TUNER_PLUGIN"] = "/opt/mine/libnccl-tuner-mine.so"
    changes = flashccl.enable(tuner=True, net_plugin=True)
    assert os.environ["NCCL_NET_PLUGIN"] == "none"
    assert os.environ["NCCL_TUNER_PLUGIN"] == "/opt/mine/libnccl-tuner-mine.so"
    assert "NCCL_TUNER_PLUGIN" not in changes
    assert "NCCL_NET_PLUGIN" not in changes


def test_the_wheel_carries_the_net_plugin_and_net_plugin_true_uses_it(clean_environ):
    shipped = os.path.join(flashccl.ld_library_path(), "libnccl-net-softbond.so")
    assert os.path.isfile(shipped)
    flashccl.enable(net_plugin=True)
    assert os.environ["NCCL_NET_PLUGIN"] == shipped


# The tuner plugin changes NCCL's own choices: only when asked for.

def test_tuner_is_off_unless_asked_for(clean_environ, package_with_plugins):
    changes = flashccl.enable()
    assert "NCCL_TUNER_PLUGIN" not in os.environ
    assert "NCCL_TUNER_PLUGIN" not in changes
    preloaded = [os.path.basename(entry) for entry in os.environ["LD_PRELOAD"].split(":")]
    assert _layout.TUNER_FILE_NAME not in preloaded


def test_tuner_true_names_the_plugin_by_its_path(clean_environ, package_with_plugins):
    changes = flashccl.enable(tuner=True)
    tuner = str(package_with_plugins / "libnccl-tuner-flashccl.so")
    assert os.environ["NCCL_TUNER_PLUGIN"] == tuner
    assert changes["NCCL_TUNER_PLUGIN"] == tuner
    # NCCL loads it by that path; its folder is on the library path as well, for
    # NCCL_TUNER_PLUGIN=flashccl.
    assert os.environ["LD_LIBRARY_PATH"].split(":")[0] == str(package_with_plugins)
    assert tuner not in os.environ["LD_PRELOAD"].split(":")


def test_tuner_true_twice_changes_nothing(clean_environ, package_with_plugins, capsys):
    flashccl.enable(tuner=True)
    capsys.readouterr()
    assert flashccl.enable(tuner=True) == {}
    assert "already enabled" in capsys.readouterr().err


def test_tuner_true_without_the_plugin_fails_and_changes_nothing(clean_environ, tmp_path, monkeypatch,
                                                                 library):
    _package_copy(tmp_path, monkeypatch, library, plugins=())
    with pytest.raises(flashccl.NativePartMissing, match="tuner plugin"):
        flashccl.enable(tuner=True)
    assert "LD_PRELOAD" not in os.environ
    assert "NCCL_TUNER_PLUGIN" not in os.environ


def test_the_wheel_carries_the_tuner(clean_environ):
    flashccl.enable(tuner=True)
    assert os.path.isfile(os.environ["NCCL_TUNER_PLUGIN"])
    assert os.path.basename(os.environ["NCCL_TUNER_PLUGIN"]) == "libnccl-tuner-flashccl.so"


# The already-loaded warning runs in children: a library loaded into pytest cannot be unloaded.

def _real_nccl():
    for path in ("/usr/local/cuda/lib64/libnccl.so.2", "/usr/lib/x86_64-linux-gnu/libnccl.so.2"):
        if os.path.isfile(path):
            return path
    pytest.skip("no libnccl.so.2 on this machine to load")


ENABLE_AND_REPORT = "import flashccl, warnings; warnings.simplefilter('always'); flashccl.enable()"


def test_warns_when_nccl_is_already_loaded(clean_environ):
    nccl = _real_nccl()
    child = run_python(f"import ctypes; ctypes.CDLL({nccl!r}); " + ENABLE_AND_REPORT, env=dict(os.environ))
    assert child.returncode == 0, child.stderr
    assert "NcclAlreadyLoadedWarning" in child.stderr
    assert os.path.realpath(nccl) in child.stderr or nccl in child.stderr
    assert "cannot put flashccl in front of it here" in child.stderr
    assert "python -m flashccl run torchrun" in child.stderr
    # The variables are still set, for the processes it starts.
    assert "flashccl: LD_PRELOAD=" in child.stderr


def test_warns_when_torch_cuda_nccl_was_imported(clean_environ):
    code = "import sys, types; sys.modules['torch.cuda.nccl'] = types.ModuleType('torch.cuda.nccl'); "
    child = run_python(code + ENABLE_AND_REPORT, env=dict(os.environ))
    assert child.returncode == 0, child.stderr
    assert "NcclAlreadyLoadedWarning" in child.stderr


def test_no_warning_in_a_fresh_process(clean_environ):
    child = run_python(ENABLE_AND_REPORT, env=dict(os.environ))
    assert child.returncode == 0, child.stderr
    assert "Warning" not in child.stderr
    assert "flashccl: LD_PRELOAD=" in child.stderr


def test_no_warning_when_flashccl_is_already_preloaded(clean_environ, library):
    nccl = _real_nccl()
    env = dict(os.environ, LD_PRELOAD=library)
    child = run_python(f"import ctypes; ctypes.CDLL({nccl!r}); " + ENABLE_AND_REPORT, env=env)
    assert child.returncode == 0, child.stderr
    assert "Warning" not in child.stderr
    assert "already runs over flashccl" in child.stderr


@pytest.mark.parametrize("variable", ["VLLM_NCCL_SO_PATH", "SGLANG_NCCL_SO_PATH"])
def test_points_the_engines_nccl_path_at_flashccl(clean_environ, library, variable):
    # vLLM and SGLang ctypes.CDLL this path and call through the handle (docs/integrations.md).
    changes = flashccl.enable()
    assert os.environ[variable] == library
    assert changes[variable] == library


@pytest.mark.parametrize("variable", ["VLLM_NCCL_SO_PATH", "SGLANG_NCCL_SO_PATH"])
def test_keeps_the_engines_nccl_path_the_user_set(clean_environ, library, variable):
    os.environ[variable] = "/opt/nccl/lib/libnccl.so.2"
    changes = flashccl.enable()
    assert os.environ[variable] == "/opt/nccl/lib/libnccl.so.2"
    assert variable not in changes
