#!/usr/bin/env bash
# Runs one conversation test: feeds CONVERSATION.jsonrpc (JSON messages separated by `---`
# lines) to `kernelscope lsp --lit-test` and compares what the server sent with
# CONVERSATION.expected. UPDATE_GOLDEN=1 rewrites the expected file instead.
#
# In the conversation, ${ROOT} stands for the source tree and ${TEXT:path} for the
# contents of a file under it as a JSON string; in the output the source tree's path is
# written back as ${ROOT}, so golden files do not depend on where the tree is.
set -euo pipefail
kernelscope=$1 conversation=$2 root=$3
expected=${conversation%.jsonrpc}.expected

input=$(python3 - "$conversation" "$root" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
root = sys.argv[2]
text = re.sub(r"\$\{TEXT:([^}]+)\}", lambda m: json.dumps(open(root + "/" + m.group(1)).read()), text)
sys.stdout.write(text.replace("${ROOT}", root))
PY
)
actual=$(printf '%s\n' "$input" | "$kernelscope" lsp --lit-test | sed "s|$root|\${ROOT}|g")

if [[ "${UPDATE_GOLDEN:-0}" == 1 ]]; then
  printf '%s\n' "$actual" > "$expected"
  echo "updated $expected"
  exit 0
fi
if [[ ! -f "$expected" ]]; then
  echo "missing $expected (run with UPDATE_GOLDEN=1 to create it)" >&2
  exit 1
fi
diff -u "$expected" <(printf '%s\n' "$actual")
