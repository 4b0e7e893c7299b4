#!/usr/bin/env bash
# Runs one conversation test: feeds CONVERSATION.jsonrpc (JSON messages separated by `---`
# lines) to `kernelscope lsp --lit-test` and checks what the server sent with LLVM's
# FileCheck against the `# CHECK:` lines of the same file.
#
#   run-conversation.sh KERNELSCOPE CONVERSATION ROOT FILECHECK
#
# Lines whose first non-blank character is `#` are comments: they hold the checks and are
# never sent to the server. In the conversation, ${ROOT} stands for the source tree and
# ${TEXT:path} for the contents of a file under it as a JSON string; in the output the
# source tree's path is written back as ${ROOT}, so checks do not depend on where the tree
# is. SHOW_OUTPUT=1 prints the server's output (as the checks see it) before checking, for
# writing checks.
set -euo pipefail
if [[ $# -ne 4 ]]; then
  echo "usage: $0 KERNELSCOPE CONVERSATION ROOT FILECHECK" >&2
  exit 2
fi
kernelscope=$1 conversation=$2 root=$3 filecheck=$4
if [[ ! -x "$filecheck" ]]; then
  echo "FileCheck not found at '$filecheck' (apt-get install llvm-22-tools)" >&2
  exit 2
fi

input=$(python3 - "$conversation" "$root" <<'PY'
import json, re, sys
lines = open(sys.argv[1]).read().splitlines(keepends=True)
text = "".join(line for line in lines if not line.lstrip().startswith("#"))
root = sys.argv[2]
text = re.sub(r"\$\{TEXT:([^}]+)\}", lambda m: json.dumps(open(root + "/" + m.group(1)).read()), text)
sys.stdout.write(text.replace("${ROOT}", root))
PY
)
actual=$(printf '%s\n' "$input" | "$kernelscope" lsp --lit-test | sed "s|$root|\${ROOT}|g")

if [[ "${SHOW_OUTPUT:-0}" == 1 ]]; then
  printf '%s\n' "$actual"
fi
if ! grep -qE '^[[:space:]]*#[[:space:]]*CHECK' "$conversation"; then
  echo "$conversation has no '# CHECK:' lines: a conversation checks what it is about" >&2
  exit 1
fi
printf '%s\n' "$actual" | "$filecheck" --match-full-lines --dump-input=fail "$conversation"
