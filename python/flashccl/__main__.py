"""python -m flashccl <command> (also the `flashccl` script pip installs): one command line with
the C++ `flashccl` tool, which accepts the same command names (docs/cli.md).

    env [--debug LEVEL] [--tuner] [--net-plugin]
                                    print `export` lines: eval "$(python -m flashccl env)"
    run [--debug LEVEL] [--tuner] [--net-plugin] [--] CMD..
                                    start CMD with flashccl enabled (torchrun, mpirun, python ...)
    plot RESULTS.json [-o OUT.png]  plot a `flashccl perf -J` record (needs matplotlib)
    version, --version              print flashccl's version
    anything else                   the C++ `flashccl` command (perf, plan, doctor, trace, tune, ...),
                                    with the library's environment set: from the installed package,
                                    or from a build tree when run from a checkout
                                    (FLASHCCL_BUILD_DIR, else build/)
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from typing import List, Optional, Tuple

from . import _environment, _layout
from ._enable import enable
from ._version import version

USAGE = """\
usage: python -m flashccl <command> [args]

commands handled here:
  env [--debug LEVEL] [--tuner] [--net-plugin]
                                   print the shell lines that enable flashccl:
                                   eval "$(python -m flashccl env)"
  run [--debug LEVEL] [--tuner] [--net-plugin] [--] CMD...
                                   start CMD with flashccl enabled, e.g.
                                   python -m flashccl run torchrun --nproc_per_node=8 train.py
  plot RESULTS.json [-o OUT.png]   plot a flashccl perf -J record: latency, busbw, speedup;
                                   a flashccl tune -J record: speedup against size
  version, --version               print flashccl's version
  --tuner also sets NCCL_TUNER_PLUGIN to the tuner plugin: NCCL's own choices from this
  machine's tuning table (docs/tuner.md)
  --net-plugin also routes NCCL's network traffic through the softbond net plugin
  (NCCL_NET_PLUGIN; docs/net-plugin.md)

every other command goes to the flashccl tool in this package ({tool}):
"""


class _UsageError(Exception):
    """Bad usage of env or run: one line on stderr and exit status 2, as every flashccl command
    (docs/cli.md)."""


def _split_options(args: List[str]) -> Tuple[Optional[str], bool, bool, List[str]]:
    """Take the leading `--debug LEVEL` / `--debug=LEVEL`, `--tuner` and `--net-plugin` off args,
    in any order."""
    debug, tuner, net_plugin = None, False, False
    while args:
        if args[0].startswith("--debug="):
            debug, args = args[0].split("=", 1)[1], args[1:]
        elif args[0] == "--debug":
            if len(args) < 2:
                raise _UsageError("--debug needs a level: " + ", ".join(_environment.DEBUG_LEVELS))
            debug, args = args[1], args[2:]
        elif args[0] == "--tuner":
            tuner, args = True, args[1:]
        elif args[0] == "--net-plugin":
            net_plugin, args = True, args[1:]
        else:
            break
    return debug, tuner, net_plugin, args


def _debug_level(debug: Optional[str]) -> Optional[str]:
    try:
        return _environment.normalize_debug(debug)
    except ValueError as error:
        raise _UsageError(str(error).replace("flashccl: ", "--debug: ", 1))


def _print_env(args: List[str]) -> int:
    debug, tuner, net_plugin, rest = _split_options(args)
    if rest:
        raise _UsageError(f"unexpected arguments: {' '.join(rest)}")
    # All or nothing: a missing library or plugin fails before any line is printed.
    settings = _environment.plan(os.environ, _debug_level(debug), tuner, net_plugin)
    for setting in settings:
        print(f"export {setting.name}={shlex.quote(setting.value)}")
    return 0


def _run(args: List[str]) -> int:
    debug, tuner, net_plugin, command = _split_options(args)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        raise _UsageError("no command to run: python -m flashccl run [--debug LEVEL] [--tuner] [--net-plugin] [--] "
                          "CMD [ARGS...]")
    try:
        enable(_debug_level(debug), tuner, net_plugin)
    except _layout.NativePartMissing as error:  # no library, or no plugin asked for
        raise SystemExit(str(error))
    try:
        # exec, not a child: signals, exit status and the process tree stay the job's own.
        os.execvp(command[0], command)
    except FileNotFoundError:
        print(f"flashccl run: {command[0]}: command not found", file=sys.stderr)
        return 127
    except PermissionError:
        print(f"flashccl run: {command[0]}: permission denied", file=sys.stderr)
        return 126


def _forward_to_tool(args: List[str]) -> int:
    try:
        tool = _layout.tool_file()
    except _layout.NativePartMissing as error:
        print(error, file=sys.stderr)
        return 2
    # The tool parses its own arguments: an unknown command gets the tool's own error message.
    os.execve(tool, [tool, *args], _environment.tool_environment(os.environ))


def _usage(status: int) -> int:
    try:
        tool = _layout.tool_file()
    except _layout.NativePartMissing as error:
        print(USAGE.format(tool="missing") + str(error))
        return status
    print(USAGE.format(tool=tool), flush=True)
    subprocess.call([tool, "--help"], env=_environment.tool_environment(os.environ))
    return status


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if not args:
        return _usage(2)
    if args[0] in ("-h", "--help", "help"):
        return _usage(0)
    command, rest = args[0], args[1:]
    if command in ("version", "--version"):
        print(version())
        return 0
    if command == "plot":
        from . import _tune_plot

        # A flashccl tune record gets the speedup plot; everything else is _plot's (a perf record).
        if any(not a.startswith("-") and _tune_plot.is_tune_record(a) for a in rest):
            return _tune_plot.main(rest)
        from . import _plot  # matplotlib is imported there, only when plotting

        return _plot.main(rest)
    try:
        if command == "env":
            return _print_env(rest)
        if command == "run":
            return _run(rest)
    except _UsageError as error:
        print(f"flashccl {command}: {error} (python -m flashccl --help)", file=sys.stderr)
        return 2
    except _layout.NativePartMissing as error:  # a checkout without a build: say what to do
        print(error, file=sys.stderr)
        return 2
    return _forward_to_tool(args)


if __name__ == "__main__":
    sys.exit(main())
