"""python -m flashccl <command> (also the `flashccl` script pip installs): one command line with
the C++ `flashccl` tool, which accepts the same command names (docs/cli.md).

    env [--debug LEVEL]             print `export` lines: eval "$(python -m flashccl env)"
    run [--debug LEVEL] [--] CMD..  start CMD with flashccl enabled (torchrun, mpirun, python ...)
    plot RESULTS.json [-o OUT.png]  plot a `flashccl perf -J` record (needs matplotlib)
    version, --version              print flashccl's version
    anything else                   the C++ `flashccl` command (perf, plan, ...), with the library's
                                    environment set: from the installed package, or from a build
                                    tree when run from a checkout (FLASHCCL_BUILD_DIR, else build/)
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
  env [--debug LEVEL]              print the shell lines that enable flashccl:
                                   eval "$(python -m flashccl env)"
  run [--debug LEVEL] [--] CMD...  start CMD with flashccl enabled, e.g.
                                   python -m flashccl run torchrun --nproc_per_node=8 train.py
  plot RESULTS.json [-o OUT.png]   plot a flashccl perf -J record: latency, busbw, speedup
  version, --version               print flashccl's version

every other command goes to the flashccl tool in this package ({tool}):
"""


def _split_debug(args: List[str]) -> Tuple[Optional[str], List[str]]:
    """Take a leading `--debug LEVEL` / `--debug=LEVEL` off args."""
    if args and args[0].startswith("--debug="):
        return args[0].split("=", 1)[1], args[1:]
    if args and args[0] == "--debug":
        if len(args) < 2:
            raise SystemExit("flashccl: --debug needs a level: " + ", ".join(_environment.DEBUG_LEVELS))
        return args[1], args[2:]
    return None, args


def _debug_level(debug: Optional[str]) -> Optional[str]:
    try:
        return _environment.normalize_debug(debug)
    except ValueError as error:
        raise SystemExit(str(error))


def _print_env(args: List[str]) -> int:
    debug, rest = _split_debug(args)
    if rest:
        raise SystemExit(f"flashccl env: unexpected arguments: {' '.join(rest)}")
    settings = _environment.plan(os.environ, _debug_level(debug))  # all or nothing: no half a script
    for setting in settings:
        print(f"export {setting.name}={shlex.quote(setting.value)}")
    return 0


def _run(args: List[str]) -> int:
    debug, command = _split_debug(args)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        raise SystemExit("usage: python -m flashccl run [--debug LEVEL] [--] CMD [ARGS...]")
    enable(_debug_level(debug))
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
        from . import _plot  # matplotlib is imported there, only when plotting

        return _plot.main(rest)
    try:
        if command == "env":
            return _print_env(rest)
        if command == "run":
            return _run(rest)
    except _layout.NativePartMissing as error:  # a checkout without a build: say what to do
        print(error, file=sys.stderr)
        return 2
    return _forward_to_tool(args)


if __name__ == "__main__":
    sys.exit(main())
