#!/usr/bin/env python3
"""The docs are tested: every `flashccl ...` and `python -m flashccl ...` command line that README.md
and docs/*.md write (in fenced blocks, and in inline code that starts with the tool's name) runs as
written against the build, and none may end in a usage error (exit status 2 with the one-line
"(flashccl <command> --help)" error) or an unknown option.

    doc_commands.py SOURCE_DIR BUILD_DIR            run them all; exit 1 naming each that fails
    doc_commands.py SOURCE_DIR BUILD_DIR --list     print what would run, and how

Commands that need a GPU (doc_commands_gpu.txt, beside this file) run with no GPU visible
(CUDA_VISIBLE_DEVICES=""): they must get past their command line (and stop where the GPU is
missing), never at a usage error; `--launched` ones run as a launcher's world of one (RANK=0,
WORLD_SIZE=1, MASTER_ADDR and MASTER_PORT set). Left out: synopses (`[-b SIZE]`, `DIR`, `<name>`, `...`), lines
that show output rather than a command, and a command's bare name in prose (`flashccl trace`
names the command; a fenced `flashccl trace` line would run). Each command runs in a scratch folder
(its files land there; the checkout's algorithms/, topologies/, bench/ ... are linked in), with a
time limit.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from typing import Iterator, List, NamedTuple, Optional, Tuple

SUBCOMMANDS = ("perf", "plan", "tune", "doctor", "trace", "version", "--version", "--help", "-h",
               "env", "run", "plot")
TOOL = re.compile(r"^((?:[A-Z][A-Z0-9_]*=\S*\s+)*)(flashccl|python3? -m flashccl)(\s+.*)?$")
USAGE_ERROR = re.compile(r"\((?:flashccl \w+|python -m flashccl) --help\)|unrecognized arguments|"
                         r"not expected|[Uu]nknown option|The following argument")
# A word that stands for a value (FILE, DIR, N, SIZE, TOPOLOGY.xml, FILE|NAME): a synopsis.
PLACEHOLDER = re.compile(r"^(?:-[-\w]+=)?[A-Z][A-Z_|]*(?:\.[a-z]+)?$")
TIME_LIMIT_S = 120


class Command(NamedTuple):
    where: str       # "docs/perf.md:12"
    text: str        # as the docs write it
    env: List[Tuple[str, str]]
    argv: List[str]  # after the tool: ["perf", "-c", "5"]
    python: bool     # python -m flashccl


def _lines(path: str) -> Iterator[Tuple[int, str, bool]]:
    """(line number, text, in a fenced block) of every candidate: whole lines of fenced blocks,
    and inline code spans elsewhere."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        pending, start = "", 0
        for number, line in enumerate(f, 1):
            stripped = line.strip()
            if stripped.startswith("```"):
                fenced = not fenced
                continue
            if fenced:
                text = stripped[2:] if stripped.startswith("$ ") else stripped
                if pending:
                    text, number = pending + " " + text, start
                if text.endswith("\\"):
                    pending, start = text[:-1].rstrip(), (start if pending else number)
                    continue
                pending = ""
                yield number, text.split("  #")[0].strip(), True
            else:
                for span in re.findall(r"`([^`]+)`", line):
                    yield number, span.strip(), False


def _synopsis(argv: List[str]) -> bool:
    return any(PLACEHOLDER.match(a) or "<" in a or "[" in a or "..." in a or a == "|" for a in argv)


def extract(source: str) -> Tuple[List[Command], List[str]]:
    """The commands, and "where: text (why)" for candidates left out."""
    commands, left_out = [], []
    paths = [os.path.join(source, "README.md")] + sorted(
        os.path.join(source, "docs", name) for name in os.listdir(os.path.join(source, "docs")) if name.endswith(".md"))
    for path in paths:
        relative = os.path.relpath(path, source)
        for number, text, fenced in _lines(path):
            match = TOOL.match(text)
            if not match:
                continue
            where = f"{relative}:{number}"
            try:
                words = shlex.split(match.group(3) or "")
            except ValueError:
                left_out.append(f"{where}: {text} (not a shell line)")
                continue
            if "|" in words or ">" in words or "&&" in words:
                words = words[:min(words.index(w) for w in ("|", ">", "&&") if w in words)]
            if not words or words[0] not in SUBCOMMANDS:
                left_out.append(f"{where}: {text} (not a command: no subcommand)")
                continue
            if _synopsis(words):
                left_out.append(f"{where}: {text} (synopsis)")
                continue
            if not fenced and len(words) == 1 and words[0] not in ("version", "--version", "--help", "-h"):
                left_out.append(f"{where}: {text} (the command's name in prose)")
                continue
            if not fenced and len(words) > 1 and not words[1].startswith("-") and words[0] in ("perf", "tune", "doctor"):
                left_out.append(f"{where}: {text} (prose: these commands take no word after their name)")
                continue
            env = [tuple(assignment.split("=", 1)) for assignment in shlex.split(match.group(1) or "")]
            commands.append(Command(where, text, env, words, match.group(2) != "flashccl"))
    return commands, left_out


def gpu_only(source_of_list: str) -> List[re.Pattern]:
    """doc_commands_gpu.txt: one regular expression a line, matched against the command as the
    docs write it; '#' starts a comment."""
    patterns = []
    with open(source_of_list, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                patterns.append(re.compile(line))
    return patterns


def run(command: Command, source: str, build: str, needs_gpu: bool, scratch: str) -> Optional[str]:
    """None when the command got past its command line; else why it failed."""
    env = dict(os.environ)
    env.update(dict(command.env))
    env["PYTHONPATH"] = os.path.join(source, "python") + os.pathsep + env.get("PYTHONPATH", "")
    env["FLASHCCL_BUILD_DIR"] = build
    if needs_gpu:
        env["CUDA_VISIBLE_DEVICES"] = ""
    if "--launched" in command.argv:
        # A launcher's world of one (torchrun's variables), as under `torchrun --nproc_per_node=1`.
        env.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", LOCAL_WORLD_SIZE="1", MASTER_ADDR="127.0.0.1",
                   MASTER_PORT="29517")
    tool = os.path.join(build, "tools", "flashccl")
    argv = ([sys.executable, "-m", "flashccl"] if command.python else [tool]) + command.argv
    try:
        result = subprocess.run(argv, cwd=scratch, env=env, capture_output=True, text=True, timeout=TIME_LIMIT_S,
                                stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"ran past {TIME_LIMIT_S} s"
    output = result.stderr + result.stdout
    if USAGE_ERROR.search(output) and result.returncode != 0:
        return f"usage error (exit {result.returncode}): {output.strip().splitlines()[-1] if output.strip() else ''}"
    if result.returncode == 2 and not needs_gpu and "needs NVIDIA GPUs" in output:
        return "needs a GPU: add it to doc_commands_gpu.txt"
    return None


def main(args: List[str]) -> int:
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    source, build = os.path.abspath(args[0]), os.path.abspath(args[1])
    listing = "--list" in args[2:]
    commands, left_out = extract(source)
    patterns = gpu_only(os.path.join(os.path.dirname(os.path.abspath(__file__)), "doc_commands_gpu.txt"))
    failures = []
    with tempfile.TemporaryDirectory(prefix="flashccl-doc-commands-") as scratch:
        for name in ("algorithms", "topologies", "bench", "docs", "tests", "python"):
            os.symlink(os.path.join(source, name), os.path.join(scratch, name))
        for command in commands:
            needs_gpu = any(p.search(command.text) for p in patterns)
            if listing:
                print(f"{'gpu ' if needs_gpu else 'run '} {command.where}: {command.text}")
                continue
            problem = run(command, source, build, needs_gpu, scratch)
            print(f"{'FAIL' if problem else 'ok  '} {command.where}: {command.text}" + (f"\n     {problem}" if problem else ""),
                  flush=True)
            if problem:
                failures.append(command.where)
    if listing:
        for line in left_out:
            print(f"left out {line}")
        return 0
    print(f"{len(commands) - len(failures)} of {len(commands)} documented commands ran as written"
          f" ({len(left_out)} synopses and mentions left out)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
