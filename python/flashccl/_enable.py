"""enable(): set the environment so that processes started from here on run over flashccl."""

from __future__ import annotations

import os
import sys
import warnings
from typing import Dict, List, Union

from . import _environment, _layout
from ._loaded_libraries import is_mapped, loaded_nccl


class NcclAlreadyLoadedWarning(RuntimeWarning):
    """enable() ran in a process that already has NCCL: only child processes will use flashccl."""


def _already_loaded_message(evidence: List[str]) -> str:
    return (
        "flashccl: NCCL is already loaded in this process ("
        + ", ".join(evidence)
        + "), so enable() cannot put flashccl in front of it here: the dynamic linker reads "
        "LD_PRELOAD only when a process starts, and this process's NCCL calls are already bound. "
        "The variables above take effect in processes started from here on (subprocess, torchrun). "
        "To run a job over flashccl, start it through flashccl instead of importing torch first:\n"
        "    python -m flashccl run torchrun --nproc_per_node=8 train.py\n"
        "or call flashccl.enable() in a launcher before anything imports torch, then start the "
        "job from it (subprocess.run(['torchrun', ...])), or eval \"$(python -m flashccl env)\" "
        "in the shell that starts it."
    )


def enable(debug: Union[None, bool, str] = None, tuner: bool = False) -> Dict[str, str]:
    """Put flashccl in front of NCCL for every process started from this one after the call.

    Prepends libflashccl.so (and the net plugin this package may carry) to LD_PRELOAD and its
    folder to LD_LIBRARY_PATH, keeping what was there; names PyTorch's bundled NCCL in
    FLASHCCL_NCCL_LIBRARY and the net plugin in NCCL_NET_PLUGIN unless those are already set;
    with `tuner=True` names the tuner plugin (libnccl-tuner-flashccl.so, which applies the
    machine's tuning table to NCCL's own choices) in NCCL_TUNER_PLUGIN unless that is set, and
    raises NativePartMissing if the package has no tuner plugin; with `debug` ("INFO", "WARN",
    ... or True for INFO) sets NCCL_DEBUG and FLASHCCL_DEBUG. Calling it again changes nothing.
    Prints each change to stderr and returns them as {name: value}.

    It cannot affect the calling process itself once NCCL is loaded there; it warns
    (NcclAlreadyLoadedWarning) when that is the case.
    """
    changes = {}
    for setting in _environment.plan(os.environ, debug, tuner):
        if setting.changed:
            os.environ[setting.name] = setting.value
            changes[setting.name] = setting.value
            print(f"flashccl: {setting.name}={setting.value}  ({setting.reason})", file=sys.stderr)
    if not changes:
        print("flashccl: already enabled; environment unchanged", file=sys.stderr)

    if is_mapped(_layout.library_file()):
        # Started under LD_PRELOAD (or linked): this process already runs over flashccl.
        print("flashccl: this process already runs over flashccl", file=sys.stderr)
    else:
        evidence = loaded_nccl()
        if evidence:
            warnings.warn(_already_loaded_message(evidence), NcclAlreadyLoadedWarning, stacklevel=2)
    sys.stderr.flush()
    return changes
