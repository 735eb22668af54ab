#!/usr/bin/env bash
# The distributed measurements of BENCHMARKS.md ("The emulated cluster"),
# each run one job of .ci/emulated-cluster.sh (its settings come from the
# NETNS_* variables, which this script passes on and prints):
#   bfs       graphrun bfs --roots EMU_ROOTS (validated) with the exchanges
#             allgather + raw, sieve + auto and packed + auto, on the
#             Kronecker scales EMU_SCALES (16 17 18), on EMU_PROCS
#             processes (4 8 16);
#   pagerank  graphrun pagerank --iterations EMU_ITERATIONS (10) with the
#             direct, binary and kylix (--degrees auto) allreduce, and kylix
#             on the network EMU_KYLIX names for the process count
#             ("8:4x2 16:4x4 32:8x4", Kylix's heterogeneous degrees),
#             on Slashdot (testdata/) and the undirected Kronecker
#             scales EMU_SCALES, on EMU_PROCS processes (8 16 32).
# Usage: bash .ci/emulated-bench.sh bfs|pagerank OUTDIR
# Every run's log and JSON go to OUTDIR; the Markdown table, with the
# settings and the load average (uptime) at its start and end, to
# OUTDIR/table.md. A run that fails or exceeds NETNS_TIMEOUT is a row
# saying so; the others go on. Needs root (as the cluster script).
set -uo pipefail
cd "$(dirname "$0")/.."
. .ci/tcp-lib.sh
kind=${1:-}
out=${2:-}
[ -n "$kind" ] && [ -n "$out" ] || tcp_fail "usage: bash .ci/emulated-bench.sh bfs|pagerank OUTDIR"
mkdir -p "$out"
out=$(cd "$out" && pwd)
export NETNS_RATE=${NETNS_RATE:-100mbit} NETNS_DELAY=${NETNS_DELAY:-1ms} NETNS_TIMEOUT=${NETNS_TIMEOUT:-300}
slashdot=$PWD/testdata/soc-Slashdot0902.txt.gz
case $kind in
  bfs)
    export NETNS_CPU=${NETNS_CPU:-0.1}
    scales=${EMU_SCALES:-16 17 18}
    procs_list=${EMU_PROCS:-4 8 16}
    roots=${EMU_ROOTS:-8}
    ;;
  pagerank)
    export NETNS_CPU=${NETNS_CPU:-0.05}
    scales=${EMU_SCALES:-16 17 18}
    procs_list=${EMU_PROCS:-8 16 32}
    iterations=${EMU_ITERATIONS:-10}
    kylix_nets=${EMU_KYLIX:-8:4x2 16:4x4 32:8x4}
    [ -f "$slashdot" ] || tcp_fail "$slashdot is missing from testdata/"
    ;;
  *) tcp_fail "$kind: want bfs or pagerank" ;;
esac
if [ -z "${GRAPHRUN_BIN:-}" ]; then
  go build -o "$out/graphrun" ./cmd/graphrun || tcp_fail "go build failed"
  export GRAPHRUN_BIN=$out/graphrun
fi

settings="links $NETNS_RATE each way, one-way latency $NETNS_DELAY, $NETNS_CPU core per process (cgroup CPU quota; period ${NETNS_CPU_PERIOD:-10 ms or the shortest giving a 1 ms quota}), each run killed after $NETNS_TIMEOUT s"
load_start=$(uptime)
rows=$out/rows
: >"$rows"
# run NAME ARGS...: one job; its JSON is $out/NAME.json, its log $out/NAME.log.
run() {
  local name=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  if bash .ci/emulated-cluster.sh "$@" --json "$out/$name.json" >"$out/$name.log" 2>&1; then
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }' >"$out/$name.wall"
    echo "$name: ok ($(cat "$out/$name.wall") s; $(grep -o 'load average.*' "$out/$name.log" | tail -1))"
  else
    rm -f "$out/$name.json"
    echo "$name: FAILED: $(grep -E '^FAIL' "$out/$name.log" | tail -1)"
  fi
}
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }

if [ "$kind" = bfs ]; then
  for s in $scales; do
    for p in $procs_list; do
      for ex in allgather:raw sieve:auto packed:auto; do
        name=bfs-s$s-p$p-${ex%%:*}
        NETNS_PROCS=$p run "$name" bfs --scale "$s" --roots "$roots" --exchange "${ex%%:*}" --codec "${ex##*:}"
        if [ -f "$out/$name.json" ]; then
          jq -r --arg p "$p" --arg ex "${ex%%:*} + ${ex##*:}" --arg wall "$(cat "$out/$name.wall")" '
            ([.searches[].time] | sort | .[length / 2 | floor]) as $med |
            "| \(.SCALE) | \($p) | \($ex) | \(.harmonic_mean_TEPS / 1e6 * 100 | round / 100) | \($med * 1e3 * 10 | round / 10) | \(.comm_bytes / .NBFS / 1e6 * 100 | round / 100) | \(.construction_time * 10 | round / 10) | \(.peak_memory_bytes / 1e6 | round) | \($wall) | \(if .validated then "yes" else "no" end) |"' \
            "$out/$name.json" >>"$rows"
        else
          echo "| $s | $p | ${ex%%:*} + ${ex##*:} | failed: $(grep -E '^FAIL' "$out/$name.log" | tail -1 | cut -c7-) | | | | | | |" >>"$rows"
        fi
      done
    done
  done
  {
    echo "Emulated cluster ($settings): \`graphrun bfs --scale S --roots $roots --exchange E --codec C\`, validated. TEPS: Graph500's harmonic mean; search: the median of the $roots searches; MB sent: all processes, per search (the frontier exchanges); kernel 1: construction time; peak: the largest process's resident memory; wall: the whole job. Load average at the start: \`$load_start\`; at the end: \`$(uptime)\`."
    echo
    echo "| SCALE | processes | exchange | harmonic-mean MTEPS | search ms | MB sent per search | kernel 1 s | peak MB | wall s | validated |"
    echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|---|"
    cat "$rows"
  } >"$out/table.md"
else
  graphs="slashdot"
  for s in $scales; do graphs+=" kron$s"; done
  for g in $graphs; do
    if [ "$g" = slashdot ]; then input=("$slashdot"); label=Slashdot; else input=(--kron "${g#kron}" --undirected); label="Kronecker ${g#kron}"; fi
    for p in $procs_list; do
      methods="direct binary kylix"
      for net in $kylix_nets; do
        [ "${net%%:*}" != "$p" ] || methods+=" kylix:${net#*:}"
      done
      direct_ms=
      for m in $methods; do
        a=${m%%:*}
        name=pr-$g-p$p-${m/:/-}
        case $m in
          kylix) deg=(--degrees auto) ;;
          kylix:*) deg=(--degrees "${m#kylix:}") ;;
          *) deg=() ;;
        esac
        NETNS_PROCS=$p run "$name" pagerank "${input[@]}" --iterations "$iterations" --allreduce "$a" "${deg[@]}"
        if [ -f "$out/$name.json" ]; then
          ms=$(jq '.iteration_time.median * 1e3' "$out/$name.json")
          [ "$a" != direct ] || direct_ms=$ms
          jq -r --arg p "$p" --arg g "$label" --arg wall "$(cat "$out/$name.wall")" --arg direct "${direct_ms:-0}" '
            (.iterations | if . < 1 then 1 else . end) as $it |
            (.iteration_time.median * 1e3) as $ms |
            "| \($g) | \($p) | \(.allreduce) | \($ms * 10 | round / 10) | \(if ($direct | tonumber) > 0 then ($ms / ($direct | tonumber) * 100 | round / 100 | tostring) else "—" end) | \(.time_per_iteration.compute * 1e3 * 10 | round / 10) | \(.time_per_iteration.communication * 1e3 * 10 | round / 10) | \(.comm_messages / $it | round) | \(.comm_bytes / $it / 1e6 * 100 | round / 100) | \([.layers[]? | .bytes / $it / 1e6 * 100 | round / 100 | tostring] | join(", ")) | \(.peak_memory_bytes / 1e6 | round) | \($wall) |"' \
            "$out/$name.json" >>"$rows"
        else
          echo "| $label | $p | $m | failed: $(grep -E '^FAIL' "$out/$name.log" | tail -1 | cut -c7-) | | | | | | | | |" >>"$rows"
        fi
      done
    done
  done
  {
    echo "Emulated cluster ($settings): \`graphrun pagerank GRAPH --iterations $iterations --allreduce A\` (kylix: \`--degrees auto\`; Kronecker: \`--kron S --undirected\`). Iteration: the median iteration's time (× direct: divided by the direct allreduce's on the same graph and processes), and the mean compute and communication time; messages and MB: all processes, per iteration, and MB per layer of the allreduce network (Kylix Fig. 5's \"Kylix shape\"); peak: the largest process's resident memory; wall: the whole job including loading. Load average at the start: \`$load_start\`; at the end: \`$(uptime)\`."
    echo
    echo "| graph | processes | allreduce | iteration ms | × direct | compute ms | communication ms | messages | MB | MB per layer | peak MB | wall s |"
    echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|"
    cat "$rows"
  } >"$out/table.md"
fi
cat "$out/table.md"
