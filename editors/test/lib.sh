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
