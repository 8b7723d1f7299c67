#!/usr/bin/env bash
# Installs what Pacer needs to build and test, on Debian 12 (bookworm), then the pinned snarkjs
# oracle (tests/oracle). Idempotent: on a machine that has everything it touches nothing.
# Runs apt-get as root, or through sudo when not root.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

# wabt (wasm2c), gcc and nasm compile circom witness generators to native code at run time
# (docs/fullprove.md); libssl-dev for the SHA-256 that keys their cache. libpq-dev: the PostgreSQL
# job queue of `pacer serve`/`pacer worker` (docs/scale-out.md); postgresql: the server its tests
# start as a throwaway cluster (nothing needs to run beforehand). clang: the tests build the C ABI's
# example plugins with another compiler than the host's (tests/integration/c_abi_clang.sh).
packages=(cmake ninja-build g++ pkg-config libboost-dev libspdlog-dev libfmt-dev libtoml11-dev
          catch2 nlohmann-json3-dev libcli11-dev libgmp-dev libssl-dev wabt gcc nasm python3
          libpq-dev postgresql clang)
# Node + npm only when npm is not already there: a node from elsewhere (e.g. NodeSource's
# nodejs, which bundles npm) conflicts with Debian's npm package ("held broken packages").
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: system packages already installed"
else
  echo "install_deps: installing ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then sudo=()
  elif command -v sudo >/dev/null 2>&1; then sudo=(sudo)
  else echo "install_deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The oracle: snarkjs + circom2 + circomlib exactly as package-lock.json pins them.
oracle="$root/tests/oracle"
stamp="$oracle/node_modules/.package-lock.json"   # npm ci writes it last
if [ ! -f "$stamp" ] || [ "$oracle/package-lock.json" -nt "$stamp" ]; then
  echo "install_deps: npm ci in tests/oracle"
  (cd "$oracle" && npm ci --no-audit --no-fund --loglevel=error)
else
  echo "install_deps: tests/oracle/node_modules up to date"
fi
