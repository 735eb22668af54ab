#!/usr/bin/env bash
# Four ranks in four network namespaces: each namespace has one veth
# interface, joined to a bridge in a fifth namespace, with an address of a
# private /24 that exists only inside these namespaces (10.231.N.0/24).
# Rank i listens on its own address (--listen), the coordinator runs in the
# namespace of rank 0; the run must find the searches of the in-process run.
# The root namespace is not touched; the namespaces are removed on exit.
# Needs root. Usage: bash .ci/tcp-netns.sh [SCALE] (default 18);
# GRAPHRUN_BIN=path skips the build.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/tcp-lib.sh
scale=${1:-18}
[ "$(id -u)" = 0 ] || tcp_fail "network namespaces need root"
tcp_need_cmd ip iproute2
tcp_need_cmd jq jq

tcp_scratch
tag=grtcp$$
tcp_build

tcp_netns_hosts "$tag" 4 231
echo "== namespaces: bridge in ${tag}-sw, ranks in ${tag}-0..3 on $net.1-4/24"

echo "== graphrun bfs --scale $scale, one rank per namespace"
token=$(tcp_token)
for i in 0 1 2 3; do
  ip netns exec "$tag-$i" env GRAPHRUN_TOKEN="$token" GRAPHRUN_COORDINATOR="$net.1:7000" \
    "$GRAPHRUN" bfs --scale "$scale" --rank "$i" --size 4 --threads 1 --listen "$net.$((i + 1))" \
    --json "$TCP_TMP/netns.json" >"$TCP_TMP/out$i" 2>"$TCP_TMP/err$i" &
  pids[i]=$!
done
for i in 0 1 2 3; do
  if ! wait "${pids[i]}"; then
    for j in 0 1 2 3; do sed "s/^/rank $j: /" "$TCP_TMP/err$j" >&2; done
    tcp_fail "rank $i failed"
  fi
done
pids=()
for i in 0 1 2 3; do
  grep -q "rank $i of 4: listening for peers on $net.$((i + 1)):" "$TCP_TMP/err$i" ||
    { cat "$TCP_TMP/err$i" >&2; tcp_fail "rank $i did not listen on its own address $net.$((i + 1))"; }
  [ "$i" = 0 ] || [ ! -s "$TCP_TMP/out$i" ] || tcp_fail "rank $i printed on stdout"
  tx=$(ip -n "$tag-$i" -j -s link show eth0 | jq '.[0].stats64.tx.bytes')
  echo "rank $i: $net.$((i + 1)), sent $((tx / 1000000)) MB through its namespace's eth0"
  [ "$tx" -gt 1000000 ] || tcp_fail "rank $i sent only $tx bytes through eth0"
done
tcp_graph500_block "$TCP_TMP/out0" 4
grep -E '^bfs  harmonic_mean_TEPS:' "$TCP_TMP/out0"

"$GRAPHRUN" bfs --scale "$scale" --ranks 4 --json "$TCP_TMP/ranks.json" >/dev/null
tcp_same_searches "$TCP_TMP/netns.json" "$TCP_TMP/ranks.json"
echo "tcp-netns: OK"
