#!/usr/bin/env python3
"""Fails when a source file includes from a layer above its own (docs/design.md, "Layers").

The layers of src/, lowest first. A file may include headers of its own layer and of any layer
below it, never above: base knows nothing of ours; the runtime is the only place that ties the
middle layers together; the shim sits on top. Usage: check_layers.py [SRC_DIR]
"""
import os
import re
import sys

LAYERS = ["base", "topo", "transport", "algo", "msccl", "select", "trace", "runtime", "shim"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(path):
    top = path.split("/", 1)[0]
    return LAYERS.index(top) if top in LAYERS else None


def violations(src_dir):
    found = []
    for root, _, files in os.walk(src_dir):
        for name in sorted(files):
            if not name.endswith((".h", ".cc", ".cu", ".cuh")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src_dir)
            own = layer_of(rel)
            if own is None:
                found.append(f"{rel}: not in a layer ({', '.join(LAYERS)})")
                continue
            with open(path, encoding="utf-8") as handle:
                for number, line in enumerate(handle, 1):
                    match = INCLUDE.match(line)
                    if not match:
                        continue
                    included = layer_of(match.group(1))
                    if included is not None and included > own:
                        found.append(f"{rel}:{number}: includes {match.group(1)} "
                                     f"({LAYERS[included]} is above {LAYERS[own]})")
    return found


def main():
    src_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "src")
    found = violations(src_dir)
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} include(s) reach up a layer; order is {' < '.join(LAYERS)}")
        return 1
    print(f"layers ok: {' < '.join(LAYERS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
