#!/usr/bin/env bash
# ensure-apt.sh TAG PACKAGE...: installs the Debian packages that are not installed yet
# (apt-get update first, only when something is missing). Idempotent; used by the set-up
# and by each editor test, so every one of them works on a fresh machine on its own.
set -euo pipefail
tag=$1
shift
missing=()
for p in "$@"; do
  [ -n "$p" ] || continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
printf '[%s] installing Debian packages: %s\n' "$tag" "${missing[*]}" >&2
as_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq -o DPkg::Lock::Timeout=600 "${missing[@]}" >/dev/null
