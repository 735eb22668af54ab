#!/usr/bin/env bash
# Runs every fuzz target of the decoders of external bytes for a fixed number
# of executions each (default 1000000; the first argument overrides), one
# target at a time, and prints one line per target with its exec count and
# time. New crashers land in the package's testdata/fuzz/<target>/ (keep them:
# they become regression tests of `go test ./...`). Exit status 1 on the
# first crash.
#
#   .ci/fuzz.sh            # 10^6 execs per target (the issue's bar)
#   .ci/fuzz.sh 100000     # CI's shorter pass
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
execs=${1:-1000000}

targets=$(for f in $(git ls-files '*_test.go'); do
  grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed "s|^func |$(dirname "$f") |" || true
done)

count=0
while read -r pkg name; do
  [ -n "$name" ] || continue
  start=$(date +%s)
  if ! out=$(go test "./$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "${execs}x" 2>&1); then
    echo "$out" | tail -30
    echo "fuzz: ./$pkg $name FAILED"
    exit 1
  fi
  echo "fuzz: ./$pkg $name: $execs execs in $(( $(date +%s) - start )) s, no crash"
  count=$((count + 1))
done <<< "$targets"
echo "fuzz: $count targets, $execs execs each, no crash"
