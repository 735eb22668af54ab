#!/usr/bin/env bash
# Regression guard of graphrun's memory (BENCHMARKS.md, "Memory per tuple"): a
# validated scale-18 Graph500 run, on 1 and on 2 in-process ranks, must
# report a peak resident set size (peak_memory_bytes in its JSON: the
# process's VmHWM) below a ceiling per input tuple. At scale 18 (4.19 M
# tuples) the Go runtime and the binary alone are ~5 bytes per tuple, so the
# ceiling is above the ~12 bytes per tuple of large scales.
#
#   GRAPHRUN_BIN=/tmp/graphrun-ci bash .ci/memory-guard.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${GRAPHRUN_BIN:-/tmp/graphrun-ci}
ceiling=${GRAPHRUN_MEMORY_CEILING:-24} # bytes per tuple at scale 18
scale=18
tuples=$((16 << scale))
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for ranks in 1 2; do
  "$bin" bfs --scale $scale --ranks $ranks --roots 4 --json "$out/run.json" >/dev/null 2>"$out/err" || {
    cat "$out/err"; echo "memory guard: the scale-$scale run failed"; exit 1; }
  # The top-level key comes after the per-rank ones.
  peak=$(grep -o '"peak_memory_bytes": [0-9]*' "$out/run.json" | tail -1 | grep -o '[0-9]*$')
  if [ -z "$peak" ]; then
    echo "memory guard: no peak_memory_bytes in the run's JSON"; exit 1
  fi
  per=$(awk -v p="$peak" -v t="$tuples" 'BEGIN { printf "%.1f", p / t }')
  echo "memory guard: scale $scale, $ranks ranks: peak $peak bytes = $per bytes per tuple (ceiling $ceiling)"
  if ! awk -v p="$peak" -v t="$tuples" -v c="$ceiling" 'BEGIN { exit !(p / t <= c) }'; then
    echo "memory guard: FAILED: $per bytes per tuple is above the ceiling of $ceiling"
    exit 1
  fi
done
