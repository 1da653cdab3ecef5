#!/usr/bin/env bash
# What the tests need from the system, installed from Debian's packages when it is missing:
# - chromium: the web UI's tests drive a real browser through playwright-core (which downloads
#   nothing); EASYAI_CHROMIUM names another binary;
# - bubblewrap: the tools' processes run isolated (a PID namespace, a read-only system for
#   evaluate) where the system has it, and the security tests exercise that path.
set -euo pipefail
browser="${EASYAI_CHROMIUM:-/usr/bin/chromium}"
if [ -n "${EASYAI_CHROMIUM:-}" ] && [ ! -x "$browser" ]; then
  echo "EASYAI_CHROMIUM=$browser is not an executable" >&2
  exit 1
fi
missing=()
if [ ! -x "$browser" ]; then missing+=(chromium fonts-dejavu-core); fi
if ! command -v bwrap >/dev/null; then missing+=(bubblewrap); fi
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if ! command -v apt-get >/dev/null; then
  echo "the tests need ${missing[*]}: install them (or point EASYAI_CHROMIUM at a Chromium binary)" >&2
  exit 1
fi
as_root=()
if [ "$(id -u)" != 0 ]; then as_root=(sudo); fi
echo "installing Debian's ${missing[*]} for the tests" >&2
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
