#!/usr/bin/env bash
# Prove the committed foreign-store fixtures still come from the upstream
# libraries: regenerate each one into a temporary directory with Debian's
# /usr/bin/python3 (python3-igraph, python3-networkx, python3-numpy, sqlite3)
# and the two parquet-go generators (Debian has no pyarrow), compare with
# what is committed (scripts/compare_fixtures.py: bytes, or igraph's decoded
# content where HippoRAG 2's set iteration makes the edge order vary), then
# run python-igraph's PPR/top-5 on the committed HippoRAG 2 pickles against
# the results the Go tests compare with (crosscheck_igraph.py).
# Nothing is written into the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The Go generators are built from the module, then run in the copy.
go build -o "$tmp/gen_parquet" ./testdata/hipporag/gen_parquet.go
go build -o "$tmp/gen_graphrag" ./testdata/graphrag/gen_fixtures.go

fail=0
regen() { # regen DIR COMMAND...: copy DIR's generator scripts, run COMMAND there, compare
  local pkg=$1; shift
  local src="$repo/$pkg" dst="$tmp/$(basename "$pkg")"
  mkdir -p "$dst"
  find "$src" -maxdepth 1 -type f \( -name '*.py' -o -name '*.go' \) -exec cp {} "$dst/" \;
  if ! (cd "$dst" && "$@" >"$tmp/$(basename "$pkg").log" 2>&1); then
    echo "FIXTURE GENERATOR FAILED: $pkg: $*"; cat "$tmp/$(basename "$pkg").log"; fail=1; return
  fi
  rm -rf "$dst/__pycache__"
  "$py" "$repo/scripts/compare_fixtures.py" "$src" "$dst" || fail=1
}

regen testdata/hipporag sh -c "$py make_fixtures.py && $py make_query_embeddings.py && $tmp/gen_parquet"
regen testdata/lightrag "$py" make_fixtures.py
regen testdata/mem0db "$py" make_fixture.py
regen testdata/smsrdb "$py" make_fixture.py
regen internal/readers/igraphpickle/testdata "$py" make_seeds.py
regen testdata/graphrag "$tmp/gen_graphrag"

(cd testdata/hipporag && PYTHONDONTWRITEBYTECODE=1 "$py" crosscheck_igraph.py) || fail=1
exit $fail
