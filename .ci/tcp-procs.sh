#!/usr/bin/env bash
# graphrun bfs --procs 4 (four TCP processes on 127.0.0.1) prints a valid
# Graph500 block and finds exactly the searches of the in-process run with
# --ranks 4; one search's tree (--root --out) is byte-identical; and
# graphrun pagerank over --procs 4 prints exactly the in-process result.
# Usage: bash .ci/tcp-procs.sh [SCALE] (default 18); GRAPHRUN_BIN=path skips the build.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/tcp-lib.sh
scale=${1:-18}
tcp_scratch
tcp_need_cmd jq jq
tcp_build

echo "== graphrun bfs --scale $scale --procs 4 vs --ranks 4"
"$GRAPHRUN" bfs --scale "$scale" --procs 4 --json "$TCP_TMP/procs.json" >"$TCP_TMP/procs.out" 2>"$TCP_TMP/procs.err" ||
  { cat "$TCP_TMP/procs.err" >&2; tcp_fail "graphrun bfs --procs 4 failed"; }
tcp_graph500_block "$TCP_TMP/procs.out" 4
grep -E '^bfs  harmonic_mean_TEPS:' "$TCP_TMP/procs.out"
if grep -q '^rank [1-9][0-9]*: SCALE' "$TCP_TMP/procs.err"; then
  tcp_fail "a rank other than 0 printed the report"
fi
"$GRAPHRUN" bfs --scale "$scale" --ranks 4 --json "$TCP_TMP/ranks.json" >"$TCP_TMP/ranks.out"
tcp_same_searches "$TCP_TMP/procs.json" "$TCP_TMP/ranks.json"

echo "== one search's tree: --root --out over --procs 3 vs --ranks 3"
"$GRAPHRUN" bfs --scale "$scale" --root 1 --procs 3 --out "$TCP_TMP/procs.tree" >/dev/null 2>"$TCP_TMP/tree.err" ||
  { cat "$TCP_TMP/tree.err" >&2; tcp_fail "graphrun bfs --root --out --procs 3 failed"; }
"$GRAPHRUN" bfs --scale "$scale" --root 1 --ranks 3 --out "$TCP_TMP/ranks.tree" >/dev/null
cmp "$TCP_TMP/procs.tree" "$TCP_TMP/ranks.tree" || tcp_fail "the trees differ"
echo "trees identical ($(wc -l <"$TCP_TMP/procs.tree") vertices)"
echo "== graphrun pagerank on Slashdot: --procs 4 vs --ranks 4"
tcp_slashdot
"$GRAPHRUN" pagerank "$data" --procs 4 --top 20 >"$TCP_TMP/pr-procs.out" 2>"$TCP_TMP/pr-procs.err" ||
  { cat "$TCP_TMP/pr-procs.err" >&2; tcp_fail "graphrun pagerank --procs 4 failed"; }
"$GRAPHRUN" pagerank "$data" --ranks 4 --top 20 >"$TCP_TMP/pr-ranks.out"
# Everything but the timing line must be identical: top 20, iterations, L1 change, total rank.
diff <(grep -v '^time \(per iteration\|of set-up\)' "$TCP_TMP/pr-procs.out") <(grep -v '^time \(per iteration\|of set-up\)' "$TCP_TMP/pr-ranks.out") ||
  tcp_fail "pagerank over TCP differs from the in-process run"
echo "pagerank top 20 identical"
echo "tcp-procs: OK"
