#!/usr/bin/env bash
# Prints the Markdown table of BENCHMARKS.md, "A twitter-sized graph from a file": graphrun
# generate writes the Kronecker graph of SCALE and EDGEFACTOR (default 25 and 44: 1.48 G tuples,
# twitter-2010's size, about 25.6 GB of text) as a text edge list and as a .grb (the same graph,
# written by generate as it goes; with CONVERT=1 by graphrun convert from the text instead, which
# holds about 17 B per tuple: 25 GB at the defaults); then graphrun pagerank on the text and on the
# .grb (one rank, ITERATIONS iterations, default 20), and graphrun bfs on the text (its undirected
# view, ROOTS validated searches, default 8). For each: the set-up (kernel 1 for bfs), the median
# iteration (the median search for bfs), GNU time's peak resident set size, per tuple read, the
# memory model's estimate printed by pagerank (one rank) and the peak over it. Before them, the
# text's read rate by wc -l and by pagerank's set-up (which parses it twice), in MB/s. A
# benchmark, not a test: run it on a quiet machine with DIR on a disk with room for the text and
# the .grb (about 17.3 and 8.2 bytes per tuple: 38 GB at the defaults) and memory for pagerank's
# peak (the model: about 13 GB at the defaults) and bfs's (about 10 B per tuple), and paste its
# output. The files are removed at the end unless KEEP=1; with KEEP=1 files already in DIR are
# used as they are (generate them beforehand, even on a loaded machine, and time only the runs).
#
#   DIR=/data bash bench/scripts/twitter-sized.sh
#   SCALE=18 ITERATIONS=3 ROOTS=2 bash bench/scripts/twitter-sized.sh    # a check, a minute
set -euo pipefail
cd "$(dirname "$0")/../.."
scale=${SCALE:-25}
ef=${EDGEFACTOR:-44}
iters=${ITERATIONS:-20}
roots=${ROOTS:-8}
. bench/scripts/common.sh
dir=${DIR:-$work}
el=$dir/tw-$scale-$ef.el grb=$dir/tw-$scale-$ef.grb
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work" "$el" "$grb"' EXIT
tuples=$((ef << scale))
secs() { python3 -c 'import sys, time; print(f"{time.time() - float(sys.argv[1]):.1f}")' "$1"; }

reuse() { [ "${KEEP:-0}" = 1 ] && [ -s "$1" ]; }
t0=$(date +%s.%N) genby=""
if reuse "$el"; then genby="generated beforehand"
else "$bin" generate --scale "$scale" --edgefactor "$ef" -o "$el" 2>/dev/null; genby="generate $(secs "$t0") s"; fi
bytes=$(stat -c %s "$el")
t0=$(date +%s.%N)
wc -l "$el" >/dev/null
wc=$(secs "$t0")
t0=$(date +%s.%N)
if reuse "$grb"; then
  how="the .grb generated beforehand"
elif [ "${CONVERT:-0}" = 1 ]; then
  /usr/bin/time -f %M -o "$work/rss" "$bin" convert "$el" -o "$grb" >/dev/null 2>"$work/err" ||
    { cat "$work/err" >&2; exit 1; }
  how="convert to .grb $(secs "$t0") s, peak $(($(cat "$work/rss") * 1024 / 1000000)) MB"
else
  "$bin" generate --scale "$scale" --edgefactor "$ef" -o "$grb" 2>/dev/null
  how="generate of the .grb $(secs "$t0") s"
fi
rate() { awk -v b="$bytes" -v s="$1" 'BEGIN { printf "%.0f", b / 1e6 / s }'; }
echo "Kronecker scale $scale, edgefactor $ef: $tuples tuples, $((bytes / 1000000)) MB of text" \
  "(${genby}); wc -l ${wc} s ($(rate "$wc") MB/s); $how."
echo
echo "| run | set-up or kernel 1 | per iteration or median search | peak memory | B per tuple | memory model | peak ÷ model |"
echo "|---|---|---|---|---|---|---|"
row() { # name setupSeconds perIterationSeconds peakBytes modelMB
  awk -v n="$1" -v s="$2" -v i="$3" -v b="$4" -v m="$5" -v t="$tuples" 'BEGIN {
    printf "| %s | %.1f s | %.3f s | %.0f MB | %.1f | %s | %s |\n", n, s, i, b / 1e6, b / t,
      (m == "" ? "—" : sprintf("%.0f MB", m)), (m == "" ? "—" : sprintf("%.2f", b / 1e6 / m)) }'
}
for input in "$el" "$grb"; do
  /usr/bin/time -f %M -o "$work/rss" "$bin" pagerank "$input" --iterations "$iters" --top 0 \
    --json "$work/run.json" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  read -r s i < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["setup"]["total"], d["iteration_time"]["median"])' "$work/run.json")
  model=$(sed -n 's/.*the memory model \([0-9.]*\) MB.*/\1/p' "$work/err")
  [ "$input" != "$el" ] || parse=$(awk -v b="$bytes" -v s="$s" 'BEGIN { printf "%.0f", 2 * b / 1e6 / s }')
  row "pagerank ${input##*.}, $iters iterations" "$s" "$i" $(($(cat "$work/rss") * 1024)) "$model"
done
/usr/bin/time -f %M -o "$work/rss" "$bin" bfs "$el" --roots "$roots" --json "$work/run.json" \
  >"$work/bfs.out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
read -r k t v < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["construction_time"], d["statistics"]["time"]["median"], d.get("validated", "?"))' "$work/run.json")
row "bfs el, $roots searches (validation: $v)" "$k" "$t" $(($(cat "$work/rss") * 1024)) ""
echo
echo "The set-up from the text read it at ${parse} MB/s (two passes over ${bytes} bytes)."
