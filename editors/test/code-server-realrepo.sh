#!/bin/bash
# VS Code on a real repository, as a user meets it, measured on screen: code-server 4.100.3 (VS Code
# 1.100.3 workbench) + our .vsix + the real ordering-lsp, driven by headless Chromium
# (playwright-core) exactly as code-server-e2e.sh does, but on a big repository opened in place
# (read-only use: the driver types into the editor and never saves; the script checks that no file
# of the repository was written). Opt-in: neither editors/test.sh nor CI runs it.
#
# Usage: code-server-realrepo.sh VSIX SERVER_BINARY [REPO] [OUT_DIR]
#   REPO     default /work/corpus/puppet/operations-puppet
#   OUT_DIR  default ./realrepo-out: drive.log, screenshots (*.png), the extension's log
# Environment:
#   ORDERING_REALREPO_FILE   file to open (default modules/profile/manifests/base.pp); the
#                            positions the driver uses are those of operations-puppet's base.pp
#   ORDERING_REALREPO_CACHE  the server's chunk cache directory to use (default: a fresh empty one,
#                            i.e. a first start, as a new user has)
#   ORDERING_REALREPO_TRACE  ordering.trace.server (default off, as a user has; "messages" logs
#                            every LSP message in the Ordering Trace output, which costs time)
#   REALREPO_LINE            the line the new-line step pastes (default `notify { 'x': }`)
# Example (from the repository root):
#   go build -o /tmp/olsp ./cmd/ordering-lsp
#   (cd editors/vscode && npm ci && npx vsce package --no-dependencies --skip-license --no-rewrite-relative-links -o /tmp/o.vsix)
#   editors/test/code-server-realrepo.sh /tmp/o.vsix /tmp/olsp /work/corpus/puppet/operations-puppet /tmp/rr
# Prints "# ..." lines with every figure (milliseconds from the moment the file is chosen in Quick
# Open, server CPU seconds per phase, RSS), one "ok - ..." / "not ok - ..." per measured step (not
# ok: the screen never showed it within the step's timeout) and "RESULT {json}" last. Exit status:
# the number of steps that did not complete. About 2-4 minutes on 2 cores.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
VSIX=$(realpath "${1:?vsix}"); SERVER=$(realpath "${2:?server binary}")
REPO=$(realpath "${3:-/work/corpus/puppet/operations-puppet}")
OUT=$(mkdir -p "${4:-$PWD/realrepo-out}" && realpath "${4:-$PWD/realrepo-out}")
FILE=${ORDERING_REALREPO_FILE:-modules/profile/manifests/base.pp}
[ -f "$REPO/$FILE" ] || { echo "not ok - $REPO/$FILE does not exist"; exit 1; }
t0=$(now_ms)
eval "$("$HERE/install-code-server.sh")" || { echo "not ok - code-server install failed"; exit 1; }

TMP=$(mktemp -d); UD=$TMP/user-data; EXT=$TMP/extensions; mkdir -p "$UD/User"
export ORDERING_CACHE_DIR=${ORDERING_REALREPO_CACHE:-$TMP/cache}   # inherited by the server
touch "$TMP/before"   # every file of REPO newer than this at the end was written by us
sum_before=$(sha256sum "$REPO/$FILE" | cut -c1-64)
: > "$TMP/config.yaml"
CS="$CS_DIR/node_modules/.bin/code-server --config $TMP/config.yaml --user-data-dir $UD --extensions-dir $EXT"
# never write into REPO: no auto-save, no hot exit restore into it, no git, no workspace settings
cs_settings "$UD/User/settings.json" "\"ordering.server.path\": \"$SERVER\", \"ordering.trace.server\": \"${ORDERING_REALREPO_TRACE:-off}\",
  \"files.autoSave\": \"off\", \"files.hotExit\": \"off\","
$CS --install-extension "$VSIX" >"$OUT/install-extension.log" 2>&1 || { cat "$OUT/install-extension.log"; echo "not ok - install the .vsix"; exit 1; }
PORT=${PORT:-$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")}
$CS --bind-addr 127.0.0.1:$PORT --auth none --disable-telemetry --disable-update-check \
    --disable-workspace-trust --disable-getting-started-override >"$OUT/code-server.log" 2>&1 &
CSPID=$!
trap 'kill $CSPID 2>/dev/null; wait $CSPID 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'exit 124' INT TERM
for i in $(seq 1 150); do curl -fsS -o /dev/null http://127.0.0.1:$PORT/healthz 2>/dev/null && break; sleep 0.2; done
echo "# machine: $(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# repository: $REPO ($(find "$REPO" -type f -not -path '*/.git/*' | wc -l) files); file: $FILE; cache: $ORDERING_CACHE_DIR"
CS_PID=$CSPID SERVER="$SERVER" NODE_PATH="$PW_DIR/node_modules" \
  node "$HERE/code-server-realrepo.js" "http://127.0.0.1:$PORT/?folder=$(urlq "$REPO")" "$REPO" "$FILE" "$OUT" | tee "$OUT/drive.log"
rc=${PIPESTATUS[0]}
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg); total $(( $(now_ms) - t0 )) ms"
find "$UD/logs" -name '*Ordering*' -exec cp {} "$OUT/" \; 2>/dev/null
written=$(find "$REPO" -newer "$TMP/before" -type f 2>/dev/null | head -5)
if [ -z "$written" ] && [ "$(sha256sum "$REPO/$FILE" | cut -c1-64)" = "$sum_before" ]; then
  echo "ok - no file of $REPO was written"
else
  echo "not ok - files of $REPO were written: $written"; rc=$((rc + 1))
fi
exit $rc
