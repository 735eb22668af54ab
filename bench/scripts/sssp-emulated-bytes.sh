#!/usr/bin/env bash
# Prints the Markdown table "Bytes per SSSP search over the emulated cluster": graphrun sssp on
# EMU_PROCS processes (default 8) of .ci/emulated-cluster.sh (links of NETNS_RATE, default
# 100mbit, one-way latency NETNS_DELAY, default 1ms; NETNS_CPU core per process, default 0.25),
# on the Kronecker scales EMU_SCALES (default 16), EMU_ROOTS validated searches (default 8),
# with the packed BFS exchange, twice: --codec raw, whose relaxation requests travel as fixed
# 16-byte records, and --codec auto, whose requests travel compact (sorted per destination,
# combined to the one the owner keeps, varint-coded: spmv/sssp's Config.Compact, on whenever the
# codec is not raw). Bytes and requests are the run JSON's, summed over the processes, per
# search: they do not depend on the load, so a busy machine measures them as a quiet one does
# (the times it would give do, and are left out). Needs root (the cluster script's namespaces).
#
#   bash bench/scripts/sssp-emulated-bytes.sh
#   EMU_SCALES="16 18" EMU_PROCS="4 8" bash bench/scripts/sssp-emulated-bytes.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
scales=${EMU_SCALES:-16}
procs_list=${EMU_PROCS:-8}
roots=${EMU_ROOTS:-8}
. bench/scripts/common.sh
export GRAPHRUN_BIN=$bin NETNS_RATE=${NETNS_RATE:-100mbit} NETNS_DELAY=${NETNS_DELAY:-1ms} NETNS_CPU=${NETNS_CPU:-0.25}
echo "Links $NETNS_RATE each way, one-way latency $NETNS_DELAY, $NETNS_CPU core per process."
echo
echo "| SCALE | processes | relaxation requests | SSSP bytes per search | messages per search | requests per search | validated | BFS bytes per search |"
echo "|---|---|---|---|---|---|---|---|"
for s in $scales; do
  for p in $procs_list; do
    for codec in raw auto; do
      if ! NETNS_PROCS=$p bash .ci/emulated-cluster.sh sssp --scale "$s" --roots "$roots" \
        --exchange packed --codec "$codec" --json "$work/run.json" >"$work/log" 2>&1; then
        tail -20 "$work/log" >&2
        echo "sssp-emulated-bytes: scale $s on $p processes, --codec $codec failed" >&2
        exit 1
      fi
      what=$([ "$codec" = raw ] && echo "fixed (--codec raw)" || echo "compact (--codec auto)")
      jq -r '(.sssp.searches | length) as $n |
        [.sssp.comm_bytes / $n, .sssp.comm_messages / $n, ([.sssp.searches[].requests] | add / $n),
         (if .sssp.validated then "yes" else "NO" end), .comm_bytes / (.searches | length)] | @tsv' "$work/run.json" |
        awk -F'\t' -v s="$s" -v p="$p" -v w="$what" '{
          printf "| %s | %s | %s | %.3g MB | %.0f | %.0f | %s | %.3g MB |\n", s, p, w, $1 / 1e6, $2, $3, $4, $5 / 1e6 }'
    done
  done
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
