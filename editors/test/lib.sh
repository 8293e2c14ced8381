# Shared helpers for the editor test scripts (sourced, not run).
# Cache for installed tools (code-server, playwright-core): survives between runs, outside the repo.
: "${ORDERING_EDITORS_CACHE:=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/ordering-lsp-editors}"
export ORDERING_EDITORS_CACHE

# Native npm modules (argon2, node-pty, ...) are rebuilt with node-gyp, which otherwise downloads the
# Node headers from the Node.js website: a machine that reaches only the package registries cannot.
# Debian's nodejs ships those headers in /usr/include/node, so point node-gyp there.
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/common.gypi ]; then
  export npm_config_nodedir=/usr
fi

# apt_need PKG...: install the Debian packages that are missing (no apt call when all are there).
apt_need() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "apt-get install ${missing[*]}" >&2
  local sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  # another apt may hold the lock (CI images, parallel installs): wait for it
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${missing[@]}" >&2 \
    || { $sudo apt-get -o DPkg::Lock::Timeout=600 update >&2 \
         && DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${missing[@]}" >&2; }
}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# make_control_repo DIR: DIR/control, a control repository whose Puppetfile names module foo from
# the git repository DIR/src/foo (no network); role::web includes foo, role::broken a class foo
# does not define (as cmd/ordering-lsp/install_test.go).
make_control_repo() {
  local d=$1
  mkdir -p "$d/src/foo/manifests" "$d/control/manifests" "$d/control/site-modules/role/manifests"
  printf "class foo {\n  notify { 'foo': }\n}\n" > "$d/src/foo/manifests/init.pp"
  (cd "$d/src/foo" && git init -q -b main && git add . && git -c user.name=t -c user.email=t@example.invalid commit -q -m foo)
  printf "mod 'foo',\n  :git    => '%s',\n  :branch => 'main'\n" "$d/src/foo" > "$d/control/Puppetfile"
  printf 'modulepath = site-modules:modules:$basemodulepath\n' > "$d/control/environment.conf"
  printf 'include role::web\n' > "$d/control/manifests/site.pp"
  printf "class role::web {\n  include foo\n  notify { 'web': require => Notify['foo'] }\n}\n" > "$d/control/site-modules/role/manifests/web.pp"
  printf "class role::broken {\n  include foo::missing\n}\n" > "$d/control/site-modules/role/manifests/broken.pp"
}

# cs_settings FILE MEMBERS: code-server's user settings for the drivers: quiet (no telemetry,
# updates, tips, experiments, AI features), light theme, no minimap, no git, the workspace trusted;
# MEMBERS ("key": value, pairs each followed by a comma) come first (the server, its trace...).
cs_settings() {
  cat > "$1" <<JSON
{ $2
  "workbench.startupEditor": "none", "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off", "update.mode": "none", "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false, "extensions.ignoreRecommendations": true, "workbench.enableExperiments": false,
  "chat.disableAIFeatures": true, "workbench.tips.enabled": false, "window.commandCenter": false,
  "workbench.colorTheme": "Default Light Modern", "editor.minimap.enabled": false, "git.enabled": false }
JSON
}

# urlq: a path as a URL query value (a folder named a+b is not "a b": code-server reads + as a space)
urlq() { node -e 'process.stdout.write(encodeURIComponent(process.argv[1]))' "$1"; }
