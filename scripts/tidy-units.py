#!/usr/bin/env python3
"""Groups C++ sources into unity files for clang-tidy (scripts/check.sh --tidy).

    tidy-units.py BUILD_DIR OUT_DIR SOURCE...

clang-tidy parses each source with all it includes, and most of its time over kernelscope is
LLVM's, asio's and the JSON library's headers parsed again for every source. So the sources
of one target (one set of flags) are checked 16 at a time through a file that includes them,
as the sanitizer tree's unity build compiles them: the same batches, in the target's order,
so names that would clash there clash here too. Writes OUT_DIR/compile_commands.json with
one entry per unity file and prints its files; a source BUILD_DIR does not compile is
printed on stderr, for clang-tidy to check alone.
"""
import json
import os
import re
import shlex
import sys

BATCH = 16  # the sanitizer tree's CMAKE_UNITY_BUILD_BATCH_SIZE (scripts/test.sh)


def arguments(entry):
    if "arguments" in entry:
        return list(entry["arguments"])
    return shlex.split(entry["command"])


def main():
    build, out, sources = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as db:
        entries = json.load(db)
    wanted = {os.path.abspath(s) for s in sources}
    # target -> (its first source's arguments, directory and file as written, [sources])
    by_target = {}
    for entry in entries:
        path = os.path.abspath(os.path.join(entry["directory"], entry["file"]))
        if path not in wanted:
            continue
        wanted.discard(path)
        args = arguments(entry)
        target = re.search(r"CMakeFiles/([^/]+)\.dir/", " ".join(args))
        key = target.group(1) if target else path
        by_target.setdefault(key, (args, entry["directory"], entry["file"], []))[3].append(path)

    units = []
    for target, (args, directory, first, paths) in by_target.items():
        for n in range(0, len(paths), BATCH):
            unit = os.path.join(out, f"{target}_{n // BATCH}.cpp")
            with open(unit, "w", encoding="utf-8") as f:
                f.writelines(f'#include "{p}"\n' for p in paths[n:n + BATCH])
            unit_args = [unit if a == first else a for a in args]
            units.append({"directory": directory, "arguments": unit_args, "file": unit})
    with open(os.path.join(out, "compile_commands.json"), "w", encoding="utf-8") as db:
        json.dump(units, db)
    for unit in units:
        print(unit["file"])
    for path in sorted(wanted):
        print(path, file=sys.stderr)


if __name__ == "__main__":
    main()
