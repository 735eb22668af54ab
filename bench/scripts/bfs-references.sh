#!/usr/bin/env bash
# Prints the Markdown table of BENCHMARKS.md, "BFS against gapbs and the Graph500 reference":
# for every SCALE, graphrun bfs on every rank count of RANKS (ROOTS validated searches, default
# seed and flags); with GAPBS (a built gapbs checkout) gapbs's bfs on the same graph (graphrun
# generate, then gapbs's converter -s); with GRAPH500 (the Graph500 reference's built src/
# folder) graph500_reference_bfs on 2 MPI processes (its own generator, same SCALE and
# edgefactor). Peak memory is GNU time's maximum resident set size of each process. A benchmark,
# not a test: run it on a quiet machine and paste its output.
#
#   bash bench/scripts/bfs-references.sh
#   SCALES="20 22" RANKS="1 2" GAPBS=~/gapbs GRAPH500=~/graph500/src bash bench/scripts/bfs-references.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
scales=${SCALES:-20 22}
ranks=${RANKS:-1 2}
roots=${ROOTS:-64}
. bench/scripts/common.sh
echo "| program | SCALE | ranks or processes | harmonic-mean TEPS | median TEPS | median time per search | kernel 1 | peak memory | bytes per tuple |"
echo "|---|---|---|---|---|---|---|---|---|"
row() { # program scale ranks hmTEPS medianTEPS medianSeconds kernel1Seconds peakBytes tuples
  awk -v p="$1" -v s="$2" -v r="$3" -v h="$4" -v m="$5" -v t="$6" -v k="$7" -v b="$8" -v n="$9" 'BEGIN {
    f = "| %s | %s | %s | %s | %s | %s | %s | %.0f MB | %.1f |\n"
    printf f, p, s, r, (h == "" ? "—" : sprintf("%.0f M", h / 1e6)), (m == "" ? "—" : sprintf("%.0f M", m / 1e6)),
      (t == "" ? "—" : sprintf("%.1f ms", t * 1e3)), (k == "" ? "—" : sprintf("%.2f s", k)), b / 1e6, b / n }'
}
for s in $scales; do
  tuples=$((16 << s))
  for r in $ranks; do
    /usr/bin/time -f %M -o "$work/rss" "$bin" bfs --scale "$s" --ranks "$r" --roots "$roots" \
      --json "$work/run.json" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    read -r h m t k < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); st = d["statistics"]
print(d["harmonic_mean_TEPS"], st["TEPS"]["median"], st["time"]["median"], d["construction_time"])' "$work/run.json")
    row graphrun "$s" "$r" "$h" "$m" "$t" "$k" $(($(cat "$work/rss") * 1024)) "$tuples"
  done
  if [ -n "${GAPBS:-}" ]; then
    "$bin" generate --scale "$s" -o "$work/k$s.el" 2>/dev/null
    "$GAPBS/converter" -f "$work/k$s.el" -s -b "$work/k$s.sg" >/dev/null
    rm -f "$work/k$s.el"
    OMP_NUM_THREADS=2 /usr/bin/time -f %M -o "$work/rss" "$GAPBS/bfs" -f "$work/k$s.sg" -n "$roots" >"$work/gapbs.out"
    t=$(awk '/Average Time:/ {print $3}' "$work/gapbs.out")
    row "gapbs bfs, same graph" "$s" "2 threads" "" "" "$t" "" $(($(cat "$work/rss") * 1024)) "$tuples"
    rm -f "$work/k$s.sg"
  fi
  if [ -n "${GRAPH500:-}" ]; then
    mpirun -np 2 /usr/bin/time -f 'peak %M' "$GRAPH500/graph500_reference_bfs" "$s" 16 >"$work/g5.out" 2>"$work/g5.err"
    h=$(awk '/bfs +harmonic_mean_TEPS/ {print $NF}' "$work/g5.out")
    m=$(awk '/bfs +median_TEPS/ {print $NF}' "$work/g5.out")
    t=$(awk '/bfs +median_time/ {print $NF}' "$work/g5.out")
    k=$(awk '/construction_time/ {print $NF}' "$work/g5.out")
    peak=$(awk '/^peak/ {if ($2 > p) p = $2} END {print p}' "$work/g5.err")
    row "Graph500 reference (peak per process)" "$s" 2 "$h" "$m" "$t" "$k" $((peak * 1024)) $((tuples / 2))
  fi
done
