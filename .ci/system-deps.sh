#!/usr/bin/env bash
# System packages the tests need (headless browser for the web page tests). Idempotent.
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium missing and not root: browser tests will be skipped" >&2
  fi
fi
