#!/usr/bin/env bash
# NumS's question on graphrun's 2D BFS: with more blocks than ranks,
# does LSHS placement (partition.PlaceLSHS over the blocks' work: a pilot's
# entries read plus a per-block fixed cost, graph500/blocks.go) beat
# round-robin (block k on rank k mod p)? Runs, on the unpermuted (skewed)
# Kronecker graph, one block per rank, then K blocks per rank placed
# round-robin, by LSHS (run fused when the layout allows it,
# graph500/fused.go) and by LSHS with --no-fuse (every block on its own,
# grid-aligned when the block grid refines the process grid,
# partition/lshs_grid.go), REPS times each in turn (CONFIGS picks them), and prints
# per run the harmonic-mean TEPS, the milliseconds per level (the searches'
# time over their levels), the busiest rank's busy time as a share of the
# searches' time, and the max/mean over ranks of busy time (traversal,
# sieve and coding: not waiting; per level the rank's slowest block), CPU
# time (the process's in the searches; only when every rank is a process),
# edges scanned, network bytes sent and edges held, from the run JSON. A
# benchmark, not a test: it asserts nothing about times.
#
#   .ci/bench-placement.sh                    # scale 18, 16 in-process ranks, 4 blocks per rank
#   SCALE=16 RANKS=4 REPS=3 .ci/bench-placement.sh
#   # on the emulated cluster, one process per rank, each with its own link:
#   PLACEMENT_RUNNER="bash .ci/shaped-links.sh" PLACEMENT_LAUNCH= NETNS_PROCS=16 .ci/bench-placement.sh
#   # BENCHMARKS.md's run (equal CPU shares, latency):
#   PLACEMENT_RUNNER="bash .ci/emulated-cluster.sh" PLACEMENT_LAUNCH= NETNS_PROCS=16 NETNS_RATE=100mbit \
#     NETNS_DELAY=1ms NETNS_CPU=0.125 NETNS_TIMEOUT=900 REPS=3 .ci/bench-placement.sh
#
# PLACEMENT_RUNNER is the command that runs graphrun (default: the binary,
# GRAPHRUN_BIN or a fresh build); PLACEMENT_LAUNCH the flags that choose the
# ranks (default --ranks RANKS). The JSON files stay in OUT (default a
# scratch folder, removed).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
scale=${SCALE:-18}
ranks=${RANKS:-16}
blocks=${BLOCKS:-4}
roots=${ROOTS:-16}
reps=${REPS:-1}
BIN=${GRAPHRUN_BIN:-/tmp/graphrun-bench-placement}
[ -n "${GRAPHRUN_BIN:-}" ] || go build -o "$BIN" ./cmd/graphrun
runner=${PLACEMENT_RUNNER:-$BIN}
launch=${PLACEMENT_LAUNCH---ranks $ranks}
out=${OUT:-}
if [ -z "$out" ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"

common=(bfs --scale "$scale" --no-permute --roots "$roots" --partition 2d)
files=()
for rep in $(seq 1 "$reps"); do
  for cfg in ${CONFIGS:-one round-robin lshs lshs-blocks}; do
    f="$out/$cfg-$rep.json"
    case $cfg in
      one) extra=() ;;
      lshs-blocks) extra=(--blocks-per-rank "$blocks" --placement lshs --no-fuse) ;;
      *) extra=(--blocks-per-rank "$blocks" --placement "$cfg") ;;
    esac
    # shellcheck disable=SC2086
    $runner "${common[@]}" "${extra[@]}" $launch --json "$f" >/dev/null 2>"$out/$cfg-$rep.err" ||
      { cat "$out/$cfg-$rep.err"; echo "bench-placement: $cfg run $rep failed"; exit 1; }
    files+=("$f")
  done
done

echo "scale $scale unpermuted, $roots roots, ${blocks} blocks per rank; ranks: ${launch:-as $runner starts them}; $(nproc) CPUs"
python3 - "${files[@]}" <<'PY'
import json, sys
def ratio(loads, key):
    v = [l.get(key, 0) for l in loads]
    m = sum(v) / len(v)
    return max(v) / m if m else 0.0
def per_level(d):
    # Mean milliseconds per level over the searches (level 0, the root, is
    # not a step), and the busiest rank's busy time as a share of the
    # searches' time.
    S = d["searches"]
    steps = sum(len(s["levels"]) - 1 for s in S)
    total = sum(s["time"] for s in S)
    busy = max(l.get("busy_seconds", 0) for l in d["rank_loads"])
    return 1e3 * total / steps, 100 * busy / total
def cpu(loads):
    # In-process ranks share one process: no rank has a CPU time of its own.
    return f"{ratio(loads, 'cpu_seconds'):.2f}" if all(l.get("cpu_seconds") for l in loads) else "-"
print("| run | grid | blocks/rank | placement | fused columns | harmonic TEPS | ms per level | busiest rank busy % of search | busy max/mean | CPU max/mean | edges scanned max/mean | network bytes sent max/mean | edges held max/mean | peak memory |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for f in sys.argv[1:]:
    d = json.load(open(f))
    L = d["rank_loads"]
    name = f.rsplit("/", 1)[-1][:-5]
    ms, busy = per_level(d)
    print(f"| {name} | {d.get('grid')} | {d.get('blocks_per_rank', 1)} | {d.get('placement', '-')} | {d.get('fused', '-')} | "
          f"{d['harmonic_mean_TEPS']:.4g} | {ms:.1f} | {busy:.0f} % | {ratio(L, 'busy_seconds'):.2f} | {cpu(L)} | {ratio(L, 'edges_scanned'):.2f} | "
          f"{ratio(L, 'bytes_sent'):.2f} | {ratio(L, 'edges'):.2f} | {d.get('peak_memory_bytes', 0) / 1e6:.0f} MB |")
PY
