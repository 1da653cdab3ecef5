#!/usr/bin/env bash
# The web UI's tests drive a real browser: Debian's chromium, through playwright-core (which
# downloads nothing). This installs it when it is missing; EASYAI_CHROMIUM names another binary.
set -euo pipefail
browser="${EASYAI_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$browser" ]; then exit 0; fi
if [ -n "${EASYAI_CHROMIUM:-}" ]; then
  echo "EASYAI_CHROMIUM=$browser is not an executable" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null; then
  echo "the web UI tests need Chromium: install it, or point EASYAI_CHROMIUM at a Chromium binary" >&2
  exit 1
fi
as_root=()
if [ "$(id -u)" != 0 ]; then as_root=(sudo); fi
echo "installing Debian's chromium for the web UI tests" >&2
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
