#!/usr/bin/env bash
# Proves that a conversation's checks can fail: runs CONVERSATION (run-conversation.sh) with
# FROM changed to TO in its first check line that holds FROM, in a copy made here, and
# passes only when FileCheck rejects the server's output at that line with MESSAGE.
#
#   catch-conversation.sh KERNELSCOPE CONVERSATION ROOT FILECHECK FROM TO MESSAGE
set -euo pipefail
if [[ $# -ne 7 ]]; then
  echo "usage: $0 KERNELSCOPE CONVERSATION ROOT FILECHECK FROM TO MESSAGE" >&2
  exit 2
fi
kernelscope=$1 conversation=$2 root=$3 filecheck=$4 from=$5 to=$6 message=$7
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
copy=$work/$(basename "$conversation")

line=$(python3 - "$conversation" "$copy" "$from" "$to" <<'PY'
import re, sys
source, copy, old, new = sys.argv[1:]
lines = open(source).read().splitlines(keepends=True)
for i, line in enumerate(lines):
    if re.match(r"\s*#\s*CHECK", line) and old in line:
        lines[i] = line.replace(old, new, 1)
        print(i + 1)
        break
else:
    sys.exit(f"no check line of {source} holds '{old}': the catch changes nothing")
open(copy, "w").write("".join(lines))
PY
)
echo "changed line $line: $(sed -n "${line}p" "$copy")"

status=0
output=$(bash "$(dirname "$0")/run-conversation.sh" "$kernelscope" "$copy" "$root" "$filecheck" 2>&1) || status=$?
if [[ $status -eq 0 ]]; then
  echo "the changed check passed: FileCheck did not catch it" >&2
  exit 1
fi
reported=$(grep -F -m1 -- "$copy:$line:" <<<"$output" || true)
if [[ "$reported" != *"$message"* ]]; then
  printf '%s\n' "$output" >&2
  echo "the run failed (status $status) without FileCheck's '$message' at line $line" >&2
  exit 1
fi
echo "$reported"
