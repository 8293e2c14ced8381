#!/bin/bash
# VS Code end-to-end: code-server 4.100.3 (VS Code 1.100.3 workbench) + our .vsix + the real
# ordering-lsp, driven by headless Chromium (playwright-core). Installs what it needs
# (install-code-server.sh). Usage: code-server-e2e.sh VSIX SERVER_BINARY [OUT_DIR]
# SERVER_BINARY "bundled": no ordering.server.path setting and no ordering-lsp on PATH, so the
# extension must start the server its platform-specific .vsix ships (checked in its log).
# Prints one "ok - ..." / "not ok - ..." line per check and exits with the number of failures.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
VSIX=$(realpath "${1:?vsix}"); SERVER=${2:?server binary}; [ "$SERVER" = bundled ] || SERVER=$(realpath "$SERVER"); OUT=$(mkdir -p "${3:-$PWD/e2e-out}" && realpath "${3:-$PWD/e2e-out}")
t0=$(now_ms)
eval "$("$HERE/install-code-server.sh")" || { echo "not ok - code-server install failed"; exit 1; }
t1=$(now_ms); echo "# install/check code-server + chromium + playwright-core: $((t1-t0)) ms"

TMP=$(mktemp -d); UD=$TMP/user-data; EXT=$TMP/extensions; WS=$TMP/workspace; mkdir -p "$UD/User"
cp -r "${ORDERING_E2E_WS:-$HERE/workspace}" "$WS"   # ORDERING_E2E_WS: another workspace (pictures of real code)
: > "$TMP/config.yaml"   # keeps code-server away from ~/.config/code-server
CS="$CS_DIR/node_modules/.bin/code-server --config $TMP/config.yaml --user-data-dir $UD --extensions-dir $EXT"
SERVER_SETTING="\"ordering.server.path\": \"$SERVER\","
if [ "$SERVER" = bundled ]; then
  SERVER_SETTING=""
  # PATH without any folder holding an ordering-lsp
  P=""; IFS=: read -ra dirs <<<"$PATH"; for d in "${dirs[@]}"; do [ -e "$d/ordering-lsp" ] || P="$P${P:+:}$d"; done; export PATH=$P
  command -v ordering-lsp >/dev/null && { echo "not ok - ordering-lsp still on PATH"; exit 1; }
fi
cs_settings "$UD/User/settings.json" "$SERVER_SETTING \"ordering.trace.server\": \"messages\","
$CS --install-extension "$VSIX" >"$OUT/install-extension.log" 2>&1 || { cat "$OUT/install-extension.log"; echo "not ok - install the .vsix"; exit 1; }
t2=$(now_ms); echo "# code-server --install-extension: $((t2-t1)) ms"
PORT=${PORT:-$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")}
$CS --bind-addr 127.0.0.1:$PORT --auth none --disable-telemetry --disable-update-check \
    --disable-workspace-trust --disable-getting-started-override >"$OUT/code-server.log" 2>&1 &
CSPID=$!
trap 'kill $CSPID 2>/dev/null; wait $CSPID 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'exit 124' INT TERM   # (timeout) still runs the EXIT trap: no code-server left behind
for i in $(seq 1 150); do curl -fsS -o /dev/null http://127.0.0.1:$PORT/healthz 2>/dev/null && break; sleep 0.2; done
t3=$(now_ms); echo "# code-server up: $((t3-t2)) ms"
SETTINGS_JSON="$UD/User/settings.json" NODE_PATH="$PW_DIR/node_modules" node "$HERE/code-server-drive.js" "http://127.0.0.1:$PORT/?folder=$(urlq "$WS")" "$WS" "$OUT" | tee "$OUT/drive.log"
rc=${PIPESTATUS[0]}
t4=$(now_ms); echo "# browser part: $((t4-t3)) ms; code-server e2e total: $((t4-t0)) ms"
# the extension's own log, for failures
find "$UD/logs" -name '*Ordering*' -exec cp {} "$OUT/" \; 2>/dev/null
if [ "$rc" != 0 ]; then  # CI keeps only what is printed: the end of the extension's output
  for f in "$OUT"/*-Ordering.log; do [ -f "$f" ] && { echo "# tail of $(basename "$f"):"; tail -n 40 "$f" | sed 's/^/#   /'; }; done
fi
if [ "$SERVER" = bundled ]; then
  line=$(grep -h "found via" "$OUT"/*Ordering* 2>/dev/null | head -1)
  ver=$(grep -h "server version:" "$OUT"/*Ordering* 2>/dev/null | head -1)
  if echo "$line" | grep -q "found via bundled"; then echo "ok - the extension started its bundled server: ${line##*starting } (${ver##*server version: })"
  else echo "not ok - the extension did not start its bundled server (log: ${line:-none})"; rc=$((rc + 1)); fi
fi
exit $rc
