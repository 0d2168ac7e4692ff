#!/usr/bin/env python3
"""Every FLASHCCL_* variable docs/environment.md names is one that flashccl reads, and every one it
reads is on that page.

    env_names.py SOURCE_DIR

"Read" is found, not listed: a FLASHCCL_* name written as a whole string literal ("FLASHCCL_LANES"
or 'FLASHCCL_BUILD_DIR') in the code that ships (src/, include/, tools/, plugins/, python/flashccl;
not their tests/). That covers envParams() in src/base/config.cc, the plugins' getenv calls and the
Python package's os.environ. A name the page mentions that no code reads, or a name read that the
page does not mention, fails, naming the file it was read in.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Dict, List, Set

SHIPPED = ("src", "include", "tools", "plugins", os.path.join("python", "flashccl"))
EXTENSIONS = (".cc", ".h", ".c", ".cu", ".cuh", ".cpp", ".hpp", ".py")
LITERAL = re.compile(r"""["'](FLASHCCL_[A-Z0-9_]+)["']""")
MENTION = re.compile(r"\bFLASHCCL_[A-Z0-9_]*[A-Z0-9]\b")


def read_by_code(source: str) -> Dict[str, List[str]]:
    """Variable -> the files (relative) that name it as a whole string literal."""
    found: Dict[str, List[str]] = {}
    for top in SHIPPED:
        for folder, subfolders, files in os.walk(os.path.join(source, top)):
            subfolders[:] = [d for d in subfolders if d not in ("tests", "__pycache__")]
            for name in files:
                if not name.endswith(EXTENSIONS):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for variable in LITERAL.findall(f.read()):
                        found.setdefault(variable, []).append(os.path.relpath(path, source))
    return found


def documented(source: str) -> Set[str]:
    with open(os.path.join(source, "docs", "environment.md"), encoding="utf-8") as f:
        return set(MENTION.findall(f.read()))


def main(args: List[str]) -> int:
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    source = os.path.abspath(args[0])
    code = read_by_code(source)
    page = documented(source)
    problems = []
    for variable in sorted(set(code) - page):
        problems.append(f"{variable} is read ({', '.join(sorted(set(code[variable])))}) but docs/environment.md "
                        "does not name it")
    for variable in sorted(page - set(code)):
        problems.append(f"{variable} is in docs/environment.md but no shipped code reads it")
    for problem in problems:
        print(problem)
    print(f"{len(page & set(code))} FLASHCCL_* variables read and documented; {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
