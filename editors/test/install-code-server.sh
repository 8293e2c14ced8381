#!/bin/bash
# Install code-server 4.100.3 (= VS Code 1.100.3, the last line that runs on Node 20) and
# playwright-core from npm, plus Debian's chromium, without any download outside Debian/npm.
# Idempotent: a second run only checks a marker file (well under a second).
# Prints two lines: CS_DIR=... and PW_DIR=...
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
CS_VERSION=4.100.3
PW_VERSION=1.65.1
CS_DIR=$ORDERING_EDITORS_CACHE/code-server-$CS_VERSION
PW_DIR=$ORDERING_EDITORS_CACHE/playwright-core-$PW_VERSION

apt_need chromium ripgrep libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config python3 build-essential curl procps fonts-dejavu-core

if [ ! -f "$CS_DIR/.installed" ]; then
  rm -rf "$CS_DIR"; mkdir -p "$CS_DIR"; cd "$CS_DIR"
  npm init -y >/dev/null
  # the package's install scripts download from GitHub (ripgrep, prebuilt natives): run them ourselves
  npm install --no-audit --no-fund --ignore-scripts code-server@$CS_VERSION >&2
  npm rebuild argon2 --foreground-scripts >&2   # prebuilt download fails -> node-gyp builds from source
  CS=node_modules/code-server
  ( cd $CS/lib/vscode && npm install --no-audit --no-fund --omit=dev --ignore-scripts >&2 \
    && mkdir -p node_modules/@vscode/ripgrep/bin && cp /usr/bin/rg node_modules/@vscode/ripgrep/bin/rg \
    && npm_config_yes=true npm rebuild --foreground-scripts >&2 )   # node-pty runs 'npx node-gyp'
  ( cd $CS && npm_config_unsafe_perm=true npm_config_user_agent="npm/$(npm -v) node/$(node -v) linux x64" sh ./postinstall.sh >&2 )
  touch "$CS_DIR/.installed"
fi

if [ ! -f "$PW_DIR/.installed" ]; then
  rm -rf "$PW_DIR"; mkdir -p "$PW_DIR"; cd "$PW_DIR"
  npm init -y >/dev/null
  # playwright-core has no install script: it never downloads a browser; we use Debian's chromium
  npm install --no-audit --no-fund playwright-core@$PW_VERSION >&2
  touch "$PW_DIR/.installed"
fi
echo "CS_DIR=$CS_DIR"
echo "PW_DIR=$PW_DIR"
