#!/usr/bin/env python3
"""Validates a SARIF file against the SARIF 2.1.0 JSON schema (OASIS, rtm.5).

The schema comes from the npm package @microsoft/jest-sarif, which ships it
(lib/schemas/sarif-2.1.0-rtm.5.json), fetched once with `npm pack` into
$KERNELSCOPE_TEST_CACHE (default ~/.cache/kernelscope-tests); jsonschema is Debian's
python3-jsonschema. Exit status: 0 valid, 1 invalid (each error printed), 77 when the schema
or the validator cannot be had here (said on stderr).
"""
import json
import os
import subprocess
import sys
import tarfile
import tempfile

PACKAGE = "@microsoft/jest-sarif@1.0.0-beta.0"
MEMBER = "package/lib/schemas/sarif-2.1.0-rtm.5.json"


def schema_path():
    cache = os.environ.get("KERNELSCOPE_TEST_CACHE") or os.path.expanduser("~/.cache/kernelscope-tests")
    path = os.path.join(cache, "sarif-2.1.0-rtm.5.json")
    if os.path.isfile(path):
        return path
    os.makedirs(cache, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(["npm", "pack", "--silent", PACKAGE], cwd=work, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
        tgz = [f for f in os.listdir(work) if f.endswith(".tgz")][0]
        with tarfile.open(os.path.join(work, tgz)) as t:
            data = t.extractfile(MEMBER).read()
        json.loads(data)  # a damaged download is not kept
        with open(path + ".tmp", "wb") as out:
            out.write(data)
        os.replace(path + ".tmp", path)
    return path


def main():
    try:
        import jsonschema
    except ImportError:
        print("skip: python3-jsonschema is not installed", file=sys.stderr)
        return 77
    try:
        schema = json.load(open(schema_path()))
    except (OSError, subprocess.SubprocessError, KeyError, ValueError) as e:
        print("skip: the SARIF schema could not be fetched (%s)" % e, file=sys.stderr)
        return 77
    log = json.load(open(sys.argv[1]))
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    for e in errors:
        print("%s: %s" % ("/".join(str(p) for p in e.path) or "(root)", e.message))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
