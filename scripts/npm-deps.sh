#!/usr/bin/env bash
# npm-deps.sh DIR...: `npm ci` in each DIR whose node_modules is missing or older than its
# package-lock.json; idempotent. Each install holds a lock on its DIR, so the test command's
# preparation in the background (scripts/test.sh) and a test that needs the same packages
# never install at once: the later one waits, then finds them installed.
set -euo pipefail
for dir in "$@"; do
  (
    flock 9
    stamp=$dir/node_modules/.package-lock.json  # npm ci writes it last
    if [ -f "$stamp" ] && [ ! "$dir/package-lock.json" -nt "$stamp" ]; then exit 0; fi
    printf '[npm-deps] installing the npm dependencies in %s\n' "$dir" >&2
    cd "$dir"
    npm_config_unsafe_perm=true npm_config_yes=true npm ci --no-audit --no-fund --loglevel=error >/dev/null
  ) 9<"$dir"
done
