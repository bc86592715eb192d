#!/usr/bin/env bash
# Services memscope record's tests run against (internal/recorder): Debian's
# mariadb-server (tessera's MySQL driver), node/npm and the reference MCP
# memory server from npm, pinned, installed into a cache directory the
# tests read (MEMSCOPE_CACHE, default ~/.cache/memscope); and hyparquet
# (Hyperparam's pure-JS parquet reader) with hyparquet-compressors (zstd,
# gzip, brotli, lz4 beside its built-in snappy), pinned, which
# scripts/graphrag-counts.mjs uses to count the real GraphRAG stores with a
# parquet reader that is not parquet-go (internal/readers).
set -euo pipefail

SERVER_MEMORY_VERSION=2026.8.31 # @modelcontextprotocol/server-memory, pinned
HYPARQUET_VERSION=1.33.0         # hyparquet, pinned
HYPARQUET_COMPRESSORS_VERSION=1.1.2
cache="${MEMSCOPE_CACHE:-$HOME/.cache/memscope}"

need=()
command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || need+=(mariadb-server)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

mkdir -p "$cache/npm"
have=$(cd "$cache/npm" && node -p "require('@modelcontextprotocol/server-memory/package.json').version" 2>/dev/null || true)
if [ "$have" != "$SERVER_MEMORY_VERSION" ]; then
  echo "installing @modelcontextprotocol/server-memory@$SERVER_MEMORY_VERSION into $cache/npm"
  (cd "$cache/npm" && npm install --no-audit --no-fund --silent "@modelcontextprotocol/server-memory@$SERVER_MEMORY_VERSION")
fi
echo "server-memory $SERVER_MEMORY_VERSION: $cache/npm/node_modules/.bin/mcp-server-memory"

# hyparquet's exports do not list package.json: read the file itself.
npmver() { node -p "JSON.parse(require('fs').readFileSync('$cache/npm/node_modules/$1/package.json')).version" 2>/dev/null || true; }
if [ "$(npmver hyparquet)" != "$HYPARQUET_VERSION" ] || [ "$(npmver hyparquet-compressors)" != "$HYPARQUET_COMPRESSORS_VERSION" ]; then
  echo "installing hyparquet@$HYPARQUET_VERSION hyparquet-compressors@$HYPARQUET_COMPRESSORS_VERSION into $cache/npm"
  (cd "$cache/npm" && npm install --no-audit --no-fund --silent --save-exact "hyparquet@$HYPARQUET_VERSION" "hyparquet-compressors@$HYPARQUET_COMPRESSORS_VERSION")
fi
echo "hyparquet $HYPARQUET_VERSION: $cache/npm/node_modules/hyparquet"
