#!/usr/bin/env bash
# Prints the Markdown table "SSSP against gapbs and the Graph500 reference": for every SCALE
# (default 20), graphrun sssp on every rank count of RANKS (default 1 2; ROOTS validated
# searches, default 64, after as many BFS searches; default seed and flags); with GAPBS (a built
# gapbs checkout) gapbs's sssp on the same weighted graph: graphrun generate writes it as a .wel,
# gapbs's converter makes the .wsg (-s, symmetrized as graphrun searches it), 2 threads, ROOTS
# sources, its delta the one graphrun chose (the JSON's sssp.delta), each search verified by its
# serial Dijkstra outside the timed trial (-v). gapbs's WeightT is an int32 (src/benchmark.h):
# its converter would truncate weights in [0, 1) to 0, so the script builds a float-weight copy
# of gapbs in its scratch folder (at build time: the typedef changed, its integer weight draw
# kept integer, its .wsg check of int32 weights dropped, a float having the same 4 bytes;
# GAPBS_FLOAT names a copy built before) and runs that copy's converter and sssp. With GRAPH500
# (the Graph500 reference's built src/ folder) graph500_reference_bfs_sssp on 2 MPI processes
# (its own generator, same SCALE and edgefactor, 64 keys; its BFS and SSSP on the same graph).
# Peak memory is GNU time's maximum resident set size of each process, per input tuple (the
# reference's per process, over its half of the tuples). A benchmark, not a test: run it on a
# quiet machine and paste its output.
#
#   bash bench/scripts/sssp-references.sh
#   SCALES=16 ROOTS=8 GAPBS=/tmp/gapbs GRAPH500=/tmp/graph500/src bash bench/scripts/sssp-references.sh
#
# The reference builds with: make CFLAGS='-Drestrict=__restrict__ -O3 -DGRAPH_GENERATOR_MPI
# -DREUSE_CSR_FOR_VALIDATION -I../aml -fcommon' (GCC 10 and later need -fcommon for it).
set -euo pipefail
cd "$(dirname "$0")/../.."
scales=${SCALES:-20}
ranks=${RANKS:-1 2}
roots=${ROOTS:-64}
. bench/scripts/common.sh
if [ -n "${GAPBS:-}" ] && [ -z "${GAPBS_FLOAT:-}" ]; then
  GAPBS_FLOAT=$work/gapbs-float
  cp -r "$GAPBS" "$GAPBS_FLOAT"
  sed -i 's/^typedef int32_t WeightT;/typedef float WeightT;/' "$GAPBS_FLOAT/src/benchmark.h"
  grep -q '^typedef float WeightT;' "$GAPBS_FLOAT/src/benchmark.h" || { echo "gapbs: no WeightT typedef to change" >&2; exit 1; }
  # Its random weights (-w, generated graphs; unused here) draw integers: keep their draw integer.
  sed -i 's/UniDist<WeightT_, rng_t_> udist/UniDist<NodeID_, rng_t_> udist/' "$GAPBS_FLOAT/src/generator.h"
  # Its .wsg writer and reader refuse weights other than int32: a float has the same 4 bytes.
  sed -i '/\.wsg only allowed for int32_t weights/{N;d}' "$GAPBS_FLOAT/src/writer.h" "$GAPBS_FLOAT/src/reader.h"
  rm -f "$GAPBS_FLOAT/converter" "$GAPBS_FLOAT/sssp"
  make -s -C "$GAPBS_FLOAT" converter sssp >&2
fi
echo "| program | SCALE | ranks, threads or processes | SSSP harmonic-mean TEPS | mean time per search | validated | peak memory | bytes per tuple |"
echo "|---|---|---|---|---|---|---|---|"
row() { # program scale ranks hmTEPS meanSeconds validated peakBytes tuples
  awk -v p="$1" -v s="$2" -v r="$3" -v h="$4" -v t="$5" -v v="$6" -v b="$7" -v n="$8" 'BEGIN {
    printf "| %s | %s | %s | %s | %s | %s | %.0f MB | %.1f |\n", p, s, r,
      (h == "" ? "—" : sprintf("%.1f M", h / 1e6)), (t == "" ? "—" : sprintf("%.2f ms", t * 1e3)), v, b / 1e6, b / n }'
}
for s in $scales; do
  tuples=$((16 << s))
  delta=
  for r in $ranks; do
    /usr/bin/time -f %M -o "$work/rss" "$bin" sssp --scale "$s" --ranks "$r" --roots "$roots" \
      --json "$work/run.json" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    read -r h t v delta < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["sssp"]
print(d["harmonic_mean_TEPS"], d["statistics"]["time"]["mean"], "yes" if d["validated"] else "NO", d["delta"])' "$work/run.json")
    row "graphrun sssp" "$s" "$r" "$h" "$t" "$v" $(($(cat "$work/rss") * 1024)) "$tuples"
  done
  if [ -n "${GAPBS_FLOAT:-}" ]; then
    "$bin" generate --scale "$s" -o "$work/k$s.wel" 2>/dev/null
    "$GAPBS_FLOAT/converter" -f "$work/k$s.wel" -s -wb "$work/k$s.wsg" >/dev/null
    rm -f "$work/k$s.wel"
    OMP_NUM_THREADS=2 /usr/bin/time -f %M -o "$work/rss" "$GAPBS_FLOAT/sssp" -f "$work/k$s.wsg" \
      -n "$roots" -d "$delta" -v >"$work/gapbs.out"
    t=$(awk '/Average Time:/ {print $3}' "$work/gapbs.out")
    v=$(awk '/Verification:/ {n++; if ($2 == "PASS") p++} END {print (n > 0 && p == n) ? "yes" : "NO"}' "$work/gapbs.out")
    row "gapbs sssp (float weights), same graph, delta $(printf %.4g "$delta")" "$s" "2 threads" "" "$t" "$v" \
      $(($(cat "$work/rss") * 1024)) "$tuples"
    rm -f "$work/k$s.wsg"
  fi
  if [ -n "${GRAPH500:-}" ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 2 /usr/bin/time -f 'peak %M' \
      "$GRAPH500/graph500_reference_bfs_sssp" "$s" 16 >"$work/g5.out" 2>"$work/g5.err"
    h=$(awk '/sssp +harmonic_mean_TEPS/ {print $NF}' "$work/g5.out")
    t=$(awk '/sssp +mean_time/ {print $NF}' "$work/g5.out")
    v=$(grep -q 'No results printed for invalid run' "$work/g5.out" && echo NO || echo yes)
    peak=$(awk '/^peak/ {if ($2 > p) p = $2} END {print p}' "$work/g5.err")
    row "Graph500 reference bfs_sssp (peak per process)" "$s" 2 "$h" "$t" "$v" $((peak * 1024)) $((tuples / 2))
  fi
done
