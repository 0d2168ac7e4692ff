"""The environment that puts flashccl in front of NCCL, computed without changing anything.

enable() applies it to os.environ, `python -m flashccl env` prints it as shell lines, and the tool
forwarder passes it to the `flashccl` command: one computation, three uses.
"""

from __future__ import annotations

import os
import re
from typing import List, Mapping, NamedTuple, Optional, Sequence, Union

from . import _layout
from ._bundled_nccl import find_bundled_nccl

# NCCL_DEBUG's levels; FLASHCCL_DEBUG takes the same ones.
DEBUG_LEVELS = ("VERSION", "WARN", "INFO", "ABORT", "TRACE")

# ld.so splits LD_PRELOAD on spaces and colons alike; LD_LIBRARY_PATH on colons (and ';').
_PRELOAD_SEPARATORS = re.compile(r"[: ]+")
_LIBRARY_PATH_SEPARATORS = re.compile(r"[:;]+")


class Setting(NamedTuple):
    name: str
    value: str
    changed: bool  # False when the environment already has exactly this value
    reason: str  # one short phrase, printed by enable()


def _same_file(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _prepend_missing(ours: Sequence[str], current: str, separators: "re.Pattern[str]") -> str:
    """Our entries first, then the existing ones in their order; entries already there (by real
    path) stay where they are, so applying this twice changes nothing the second time."""
    existing = [entry for entry in separators.split(current) if entry]
    missing = [p for p in ours if not any(_same_file(p, entry) for entry in existing)]
    return ":".join(missing + existing)


def normalize_debug(debug: Union[None, bool, str]) -> Optional[str]:
    """None/False: leave the logging variables alone. True means INFO. Else one of DEBUG_LEVELS."""
    if debug is None or debug is False:
        return None
    level = "INFO" if debug is True else str(debug).strip().upper()
    if level not in DEBUG_LEVELS:
        raise ValueError(f"flashccl: debug must be one of {', '.join(DEBUG_LEVELS)}, not {debug!r}")
    return level


# The variables in which inference engines take the path of the NCCL library they open.
ENGINE_NCCL_PATH_VARIABLES = ("VLLM_NCCL_SO_PATH", "SGLANG_NCCL_SO_PATH")


def plan(environ: Mapping[str, str], debug: Union[None, bool, str] = None,
         tuner: bool = False, net_plugin: bool = False) -> List[Setting]:
    """Every variable flashccl manages, with the value it should have after enabling.

    Only LD_PRELOAD and LD_LIBRARY_PATH are merged with what is there. The other variables are
    set only where the user has not set them, except the logging level that `debug` asks for.
    `tuner` names the tuner plugin in NCCL_TUNER_PLUGIN, `net_plugin` the softbond net plugin in
    NCCL_NET_PLUGIN (NativePartMissing, before anything changes, if this package lacks one asked
    for). Nothing else is touched: NCCL settings the user did not ask about stay as they are.
    """
    tuner_path = _layout.tuner_file() if tuner else None
    net_plugin_path = _layout.net_plugin_file() if net_plugin else None
    settings = []

    def add(name: str, value: str, reason: str) -> None:
        settings.append(Setting(name, value, environ.get(name) != value, reason))

    def add_unless_set(name: str, value: str, reason: str) -> None:
        if name in environ:
            settings.append(Setting(name, environ[name], False, "kept: set by the user"))
        else:
            add(name, value, reason)

    add("LD_PRELOAD",
        _prepend_missing(_layout.preload_files(), environ.get("LD_PRELOAD", ""), _PRELOAD_SEPARATORS),
        "flashccl in front of NCCL in every process started from here")
    add("LD_LIBRARY_PATH",
        _prepend_missing(_layout.library_dirs(), environ.get("LD_LIBRARY_PATH", ""), _LIBRARY_PATH_SEPARATORS),
        "for programs linked with -lflashccl and plugins named without a path")

    # vLLM and SGLang open NCCL themselves, by the path in these variables (ctypes.CDLL), and call
    # through that handle: pointing them at libflashccl.so reaches flashccl even where the
    # dlopen redirect (FLASHCCL_DLOPEN) is off. A path the user set is theirs.
    for engine_variable in ENGINE_NCCL_PATH_VARIABLES:
        add_unless_set(engine_variable, _layout.library_file(),
                       "the NCCL library this engine opens by path: flashccl's")

    nccl = find_bundled_nccl()
    if nccl:
        add_unless_set("FLASHCCL_NCCL_LIBRARY", nccl, "the NCCL PyTorch bundles, which flashccl forwards to")
    elif "FLASHCCL_NCCL_LIBRARY" in environ:
        settings.append(Setting("FLASHCCL_NCCL_LIBRARY", environ["FLASHCCL_NCCL_LIBRARY"], False,
                                "kept: set by the user"))

    if tuner_path:
        add_unless_set(_layout.TUNER_VARIABLE, tuner_path, "flashccl's NCCL tuner plugin, asked for by tuner=True")
    if net_plugin_path:
        add_unless_set(_layout.NET_PLUGIN_VARIABLE, net_plugin_path,
                       "the softbond net plugin, asked for by net_plugin=True")

    level = normalize_debug(debug)
    if level:
        add("NCCL_DEBUG", level, "asked for by debug=")
        add("FLASHCCL_DEBUG", level, "asked for by debug=")
    return settings


def tool_environment(environ: Mapping[str, str]) -> dict:
    """Environment for the `flashccl` command: everything but LD_PRELOAD. The command loads the
    library itself (RPATH), and compares it against the real NCCL in the same process; a
    preloaded flashccl would sit in front of that baseline too."""
    env = dict(environ)
    for setting in plan(environ):
        if setting.name != "LD_PRELOAD":
            env[setting.name] = setting.value
    return env
