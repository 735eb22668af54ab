#!/usr/bin/env bash
# Prints the Markdown table of BENCHMARKS.md, "PageRank against gapbs": for every GRAPH.sg:N
# argument, PAIRS alternating runs of graphrun pagerank (one rank, 2 threads, N iterations; its
# median iteration from the run JSON) and gapbs pr_spmv (2 threads, N iterations, one trial; its
# trial time over N), both reading the same gapbs .sg file; the ratio of each pair, their median,
# and each program's peak memory (GNU time's maximum resident set size). A benchmark, not a
# test: run it on a quiet machine and paste its output. Make the .sg files with gapbs's
# converter: `converter -f road-luxembourg-osm.mtx -b road.sg`; Slashdot from its edge list
# without the comment lines; Kronecker by `graphrun generate --scale S -o kS.el` and
# `converter -f kS.el -s -b kS.sg`.
#
#   GAPBS=~/gapbs bash bench/scripts/pagerank-gapbs.sh road.sg:2000 slash.sg:1000 k20.sg:50 k22.sg:10
set -euo pipefail
[ $# -gt 0 ] && [ -n "${GAPBS:-}" ] || { sed -n '2,12s/^# \{0,1\}//p' "$0" >&2; exit 2; }
cd "$(dirname "$0")/../.."
pairs=${PAIRS:-7}
. bench/scripts/common.sh
echo "| graph | iterations | graphrun per iteration | gapbs pr_spmv per iteration | graphrun ÷ gapbs, each pair | median | peak memory, graphrun / gapbs |"
echo "|---|---|---|---|---|---|---|"
for arg in "$@"; do
  graph=${arg%:*} iters=${arg##*:}
  : >"$work/pairs"
  gpeak=0 ppeak=0
  for _ in $(seq "$pairs"); do
    /usr/bin/time -f %M -o "$work/rss" "$bin" pagerank "$graph" --iterations "$iters" --threads 2 --top 0 \
      --json "$work/run.json" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    g=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["iteration_time"]["median"])' "$work/run.json")
    gpeak=$(( $(cat "$work/rss") > gpeak ? $(cat "$work/rss") : gpeak ))
    OMP_NUM_THREADS=2 /usr/bin/time -f %M -o "$work/rss" "$GAPBS/pr_spmv" -f "$graph" -i "$iters" -t 1e-30 -n 1 >"$work/gapbs.out"
    p=$(awk -v n="$iters" '/Trial Time:/ {print $3 / n}' "$work/gapbs.out")
    ppeak=$(( $(cat "$work/rss") > ppeak ? $(cat "$work/rss") : ppeak ))
    echo "$g $p" >>"$work/pairs"
  done
  awk -v name="$(basename "$graph" .sg)" -v n="$iters" -v gp="$gpeak" -v pp="$ppeak" '
    { g[NR] = $1; p[NR] = $2; r[NR] = $1 / $2 }
    END {
      gmin = gmax = g[1]; pmin = pmax = p[1]
      for (i = 1; i <= NR; i++) {
        if (g[i] < gmin) gmin = g[i]; if (g[i] > gmax) gmax = g[i]
        if (p[i] < pmin) pmin = p[i]; if (p[i] > pmax) pmax = p[i]
        list = list sprintf("%s%.3f", i > 1 ? " " : "", r[i]); s[i] = r[i]
      }
      for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) if (s[j] < s[i]) { t = s[i]; s[i] = s[j]; s[j] = t }
      med = NR % 2 ? s[(NR + 1) / 2] : (s[NR / 2] + s[NR / 2 + 1]) / 2
      printf "| %s | %d | %.3f–%.3f ms | %.3f–%.3f ms | %s | **%.3f** | %.1f / %.1f MB |\n",
        name, n, gmin * 1e3, gmax * 1e3, pmin * 1e3, pmax * 1e3, list, med, gp * 1.024e-3, pp * 1.024e-3 }' "$work/pairs"
done
