#!/bin/bash
# A look at the language server in VS Code on any repository (opt-in; neither editors/test.sh nor
# CI runs it): code-server 4.100.3 + the .vsix + the real server, driven by headless Chromium as
# code-server-e2e.sh does, through the steps of a spec (code-server-look.js says its format).
# The repository is opened in place and never written (no auto-save, no hot exit).
# Usage: code-server-look.sh VSIX SERVER_BINARY REPO OUT_DIR SPEC.json
# Example (from the repository root):
#   go build -o /tmp/olsp ./cmd/ordering-lsp
#   (cd editors/vscode && npm ci && npx vsce package --no-dependencies --skip-license --no-rewrite-relative-links -o /tmp/o.vsix)
#   editors/test/code-server-look.sh /tmp/o.vsix /tmp/olsp /path/to/salt-repo /tmp/look spec.json
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
VSIX=$(realpath "$1"); SERVER=$(realpath "$2"); REPO=$(realpath "$3"); OUT=$(mkdir -p "$4" && realpath "$4"); SPEC=$(realpath "$5")
eval "$("$HERE/install-code-server.sh")" || { echo "install failed"; exit 1; }
TMP=$(mktemp -d); UD=$TMP/user-data; EXT=$TMP/extensions; mkdir -p "$UD/User"
export ORDERING_CACHE_DIR=$TMP/cache
: > "$TMP/config.yaml"
CS="$CS_DIR/node_modules/.bin/code-server --config $TMP/config.yaml --user-data-dir $UD --extensions-dir $EXT"
cs_settings "$UD/User/settings.json" "\"ordering.server.path\": \"$SERVER\", \"files.autoSave\": \"off\", \"files.hotExit\": \"off\","
$CS --install-extension "$VSIX" >"$OUT/install-extension.log" 2>&1 || { cat "$OUT/install-extension.log"; exit 1; }
PORT=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
$CS --bind-addr 127.0.0.1:$PORT --auth none --disable-telemetry --disable-update-check --disable-workspace-trust --disable-getting-started-override >"$OUT/code-server.log" 2>&1 &
CSPID=$!
trap 'kill $CSPID 2>/dev/null; wait $CSPID 2>/dev/null; rm -rf "$TMP"' EXIT
for i in $(seq 1 150); do curl -fsS -o /dev/null http://127.0.0.1:$PORT/healthz 2>/dev/null && break; sleep 0.2; done
NODE_PATH="$PW_DIR/node_modules" node "$HERE/code-server-look.js" "http://127.0.0.1:$PORT/?folder=$(urlq "$REPO")" "$OUT" "$SPEC"
