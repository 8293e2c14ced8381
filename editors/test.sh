#!/bin/bash
# Every editor test of ordering-lsp, from a clean Debian machine (installs what it needs from the
# Debian and npm registries; fast when already installed):
#   1. unit tests of the VS Code extension's own logic (node:test via tsx) + type check
#   2. the .vsix build (esbuild bundle + @vscode/vsce)
#   3. VS Code end to end: code-server 4.100.3 in headless Chromium (playwright-core) with the .vsix,
#      then the linux-x64 .vsix with the server inside, with no server on PATH
#   4. Neovim 0.7 end to end (built-in LSP client)
#   5. Emacs 28 + eglot end to end
# Server: $ORDERING_LSP, or built here from the repository (go build ./cmd/ordering-lsp).
# Options: ORDERING_EDITORS_SKIP="code-server nvim emacs" (any of them),
#          ORDERING_SCREENSHOTS=DIR copies the code-server screenshots there
#          (ORDERING_SCREENSHOTS=editors/vscode/images refreshes the README's pictures).
# Last line: "N passed, M failed"; exit status 1 when M > 0.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
. "$HERE/test/lib.sh"
SKIP=" ${ORDERING_EDITORS_SKIP:-} "
TMP=$(mktemp -d)
# the server's chunk cache: never the user's cache directory
export ORDERING_CACHE_DIR=${ORDERING_CACHE_DIR:-$TMP/cache}
OUT=${ORDERING_E2E_OUT:-$TMP/out}; mkdir -p "$OUT"
trap 'rm -rf "$TMP"' EXIT
pass=0; fail=0
T_ALL=$(now_ms)

ok() { pass=$((pass + 1)); echo "ok - $*"; }
notok() { fail=$((fail + 1)); echo "not ok - $*"; }
# count "ok - " / "not ok - " lines a driver printed (its output is in file $1)
tally() {
  local p f
  p=$(grep -c '^ok - ' "$1" || true); f=$(grep -c '^not ok - ' "$1" || true)
  pass=$((pass + p)); fail=$((fail + f))
  [ "$p" -gt 0 ] || [ "$f" -gt 0 ] || notok "$2: printed no result (see above)"
}
section() { echo; echo "== $*"; }

# --- the server
section "server"
if [ -n "${ORDERING_LSP:-}" ]; then
  SERVER=$(realpath "$ORDERING_LSP")
else
  SERVER=$TMP/ordering-lsp
  (cd "$ROOT" && go build -o "$SERVER" ./cmd/ordering-lsp) || { notok "go build ./cmd/ordering-lsp"; echo "$pass passed, $fail failed"; exit 1; }
fi
[ -x "$SERVER" ] && ok "server binary $SERVER" || { notok "server binary $SERVER is not executable"; echo "$pass passed, $fail failed"; exit 1; }

# --- node toolchain (Debian's nodejs/npm when missing)
command -v node >/dev/null && command -v npm >/dev/null || apt_need nodejs npm
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || echo "# warning: Node $node_major; code-server 4.100.3 and vsce 3.9 want Node 20"

# --- 1. unit tests
section "unit tests (editors/vscode)"
t=$(now_ms)
cd "$HERE/vscode"
lock_sum=$(sha256sum package-lock.json | cut -c1-16)
if [ "$(cat node_modules/.ordering-lock 2>/dev/null)" != "$lock_sum" ]; then
  npm ci --no-audit --no-fund >"$OUT/npm-ci.log" 2>&1 || { cat "$OUT/npm-ci.log"; notok "npm ci"; }
  echo "$lock_sum" > node_modules/.ordering-lock
fi
if npm run -s typecheck >"$OUT/typecheck.log" 2>&1; then ok "typecheck (tsc --noEmit)"; else cat "$OUT/typecheck.log"; notok "typecheck (tsc --noEmit)"; fi
npm test >"$OUT/unit.log" 2>&1
u_pass=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$OUT/unit.log" | tail -1); u_fail=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$OUT/unit.log" | tail -1)
grep -E '^not ok' "$OUT/unit.log" || true
if [ -n "$u_pass" ]; then
  pass=$((pass + u_pass)); fail=$((fail + ${u_fail:-0}))
  echo "unit tests: ${u_pass} passed, ${u_fail:-0} failed"
else
  cat "$OUT/unit.log"; notok "unit tests did not run"
fi
echo "# unit tests: $(( $(now_ms) - t )) ms"

# --- 2. vsix
section "vsix"
t=$(now_ms)
VSIX=$TMP/ordering-lsp.vsix
if npx vsce package --no-dependencies --skip-license --no-rewrite-relative-links -o "$VSIX" >"$OUT/vsce.log" 2>&1; then
  size=$(stat -c %s "$VSIX")
  apt_need unzip && content=$(unzip -l "$VSIX")
  if echo "$content" | grep -q 'extension/dist/extension.js' && echo "$content" | grep -q 'extension/dist/graph.js' \
     && ! echo "$content" | grep -q 'node_modules/' && [ "$size" -lt 2000000 ]; then
    ok "vsix built: $((size / 1024)) KiB, bundled (no node_modules)"
  else
    echo "$content"; notok "vsix content or size ($size bytes)"
  fi
else
  cat "$OUT/vsce.log"; notok "vsce package"
fi
echo "# vsix: $(( $(now_ms) - t )) ms"
cd "$ROOT"

# --- 3. VS Code (code-server)
if [[ "$SKIP" != *" code-server "* ]] && [ -f "$VSIX" ]; then
  section "VS Code: code-server + Chromium"
  t=$(now_ms)
  timeout 480 "$HERE/test/code-server-e2e.sh" "$VSIX" "$SERVER" "$OUT/code-server" 2>&1 | grep -v '^ ' | grep -v '^[]{}]' | tee "$TMP/cs.txt"
  tally "$TMP/cs.txt" "code-server e2e"
  echo "# code-server e2e: $(( $(now_ms) - t )) ms"
  if [ -n "${ORDERING_SCREENSHOTS:-}" ]; then
    mkdir -p "$ORDERING_SCREENSHOTS"
    apt_need pngquant || true   # the README's pictures: ~3x smaller, same look
    for p in problems hover graph order; do
      [ -f "$OUT/code-server/$p.png" ] || continue
      pngquant --quality=70-90 --speed 1 --force --output "$ORDERING_SCREENSHOTS/$p.png" "$OUT/code-server/$p.png" 2>/dev/null \
        || cp "$OUT/code-server/$p.png" "$ORDERING_SCREENSHOTS/$p.png"
    done
  fi
fi

# --- 3b. VS Code with the server inside the extension: the linux-x64 .vsix as scripts/release
# builds it, no ordering.server.path, no ordering-lsp on PATH
if [[ "$SKIP" != *" code-server "* ]] && [ -f "$VSIX" ] && [ "$(uname -m)" = x86_64 ]; then
  section "VS Code: the linux-x64 .vsix with its bundled server"
  t=$(now_ms)
  VSIX_BUNDLED=$TMP/ordering-lsp-linux-x64.vsix
  cd "$HERE/vscode"
  rm -rf server && mkdir server
  if (cd "$ROOT" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -o "$HERE/vscode/server/ordering-lsp" ./cmd/ordering-lsp) \
     && npx vsce package --target linux-x64 --no-dependencies --skip-license --no-rewrite-relative-links -o "$VSIX_BUNDLED" >"$OUT/vsce-bundled.log" 2>&1; then
    ok "linux-x64 vsix with the server: $(( $(stat -c %s "$VSIX_BUNDLED") / 1024 )) KiB"
  else
    cat "$OUT/vsce-bundled.log"; notok "vsce package --target linux-x64"
  fi
  rm -rf server
  cd "$ROOT"
  if [ -f "$VSIX_BUNDLED" ]; then
    ORDERING_E2E_STEPS=problems,hover timeout 300 "$HERE/test/code-server-e2e.sh" "$VSIX_BUNDLED" bundled "$OUT/code-server-bundled" 2>&1 \
      | grep -v '^ ' | grep -v '^[]{}]' | tee "$TMP/csb.txt"
    tally "$TMP/csb.txt" "code-server e2e (bundled server)"
  fi
  echo "# code-server bundled: $(( $(now_ms) - t )) ms"
fi

# --- 3c. VS Code: "Ordering: Install Puppetfile Modules" on a control repository whose Puppetfile
# names a module in a local git repository (no network), with r10k or g10k
if [[ "$SKIP" != *" code-server "* ]] && [ -f "$VSIX" ] && { command -v r10k || command -v g10k; } >/dev/null; then
  section "VS Code: installing a Puppetfile's modules"
  t=$(now_ms)
  make_control_repo "$TMP/install"
  # r10k keeps its cache in ~/.r10k: a home of the test's own
  mkdir -p "$TMP/install/home"
  HOME=$TMP/install/home XDG_CACHE_HOME=$TMP/install/home/.cache ORDERING_E2E_WS=$TMP/install/control ORDERING_E2E_STEPS=install \
    timeout 300 "$HERE/test/code-server-e2e.sh" "$VSIX" "$SERVER" "$OUT/code-server-install" 2>&1 \
    | grep -v '^ ' | grep -v '^[]{}]' | tee "$TMP/csi.txt"
  tally "$TMP/csi.txt" "code-server e2e (install)"
  echo "# code-server install: $(( $(now_ms) - t )) ms"
fi

# --- 3d. VS Code: when the extension starts the server (activation/README.md): Chef policies at a
# folder's root, which no file name announces; a Ruby project whose names match the activation
# globs but whose content the server does not analyse
if [[ "$SKIP" != *" code-server "* ]] && [ -f "$VSIX" ]; then
  section "VS Code: activation"
  t=$(now_ms)
  for s in wake:policies-at-root asleep:ruby-project; do
    ORDERING_E2E_WS="$HERE/test/activation/${s#*:}" ORDERING_E2E_STEPS=${s%%:*} \
      timeout 240 "$HERE/test/code-server-e2e.sh" "$VSIX" "$SERVER" "$OUT/code-server-${s%%:*}" 2>&1 \
      | grep -v '^ ' | grep -v '^[]{}]' | tee "$TMP/cs-${s%%:*}.txt"
    tally "$TMP/cs-${s%%:*}.txt" "code-server e2e (${s%%:*})"
  done
  echo "# code-server activation: $(( $(now_ms) - t )) ms"
fi

# --- 4. Neovim
if [[ "$SKIP" != *" nvim "* ]]; then
  section "Neovim"
  t=$(now_ms)
  apt_need neovim
  ORDERING_LSP="$SERVER" WS="$HERE/test/workspace" timeout 120 \
    nvim --headless --clean -c "luafile $HERE/test/nvim-e2e.lua" >"$TMP/nvim.txt" 2>&1
  grep -E '^(ok|not ok) - ' "$TMP/nvim.txt" || cat "$TMP/nvim.txt"
  tally "$TMP/nvim.txt" "nvim e2e"
  echo "# nvim e2e ($(nvim --version | head -1)): $(( $(now_ms) - t )) ms"
fi

# --- 5. Emacs + eglot
if [[ "$SKIP" != *" emacs "* ]]; then
  section "Emacs + eglot"
  t=$(now_ms)
  apt_need emacs-nox elpa-eglot
  ORDERING_LSP="$SERVER" WS="$HERE/test/workspace" timeout 120 \
    emacs --batch -l "$HERE/test/emacs-e2e.el" >"$TMP/emacs.txt" 2>&1
  grep -E '^(ok|not ok) - ' "$TMP/emacs.txt" || cat "$TMP/emacs.txt"
  tally "$TMP/emacs.txt" "emacs e2e"
  echo "# emacs e2e ($(emacs --version | head -1)): $(( $(now_ms) - t )) ms"
fi

echo
echo "# editors total: $(( $(now_ms) - T_ALL )) ms; logs and screenshots: $OUT"
[ -n "${ORDERING_E2E_OUT:-}" ] || echo "# (set ORDERING_E2E_OUT=DIR to keep them)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
