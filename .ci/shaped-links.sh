#!/usr/bin/env bash
# graphrun over a network with one rate-limited link per process: P
# processes in P network namespaces, each with one veth interface joined to
# a bridge in another namespace. A token bucket (tc tbf) limits every link
# in both directions (egress of the rank's eth0: what it sends; egress of
# its bridge port: what it receives), so each process owns a full-duplex
# link of RATE, as each node of a cluster owns its NIC on a non-blocking
# switch (the setting of Zhang and Qiu Fig. 10, Li et al. Fig. 4/5 and Kylix
# §V's replication costs). The bytes really cross the kernel's TCP
# stack and the shaped links; nothing is modelled.
#
# Usage: bash .ci/shaped-links.sh [GRAPHRUN ARGS...]
#   The arguments are a graphrun command and its flags (default: bench
#   allreduce-dense --sizes 1e6 --repeat 1 into a scratch folder, a quick
#   check); the script adds --rank, --size and --listen. Give bench
#   allreduce-dense --tag shaped-RATE to regenerate its own table in
#   BENCHMARKS.md. With --replicas S, NETNS_PROCS counts the
#   processes (S per logical rank). NETNS_PROCS=8 and NETNS_RATE=1gbit
#   (integer mbit or gbit) are the defaults. GRAPHRUN_BIN=path skips the
#   build.
# Needs root. The root namespace is not touched; the namespaces are removed
# on exit. The script checks that every process finished, that rank 0
# printed, and that every rank's traffic went through its shaped link; it
# asserts nothing about times.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/tcp-lib.sh
procs=${NETNS_PROCS:-8}
rate=${NETNS_RATE:-1gbit}
[ "$(id -u)" = 0 ] || tcp_fail "network namespaces need root"
tcp_need_cmd ip iproute2
tcp_need_cmd tc iproute2
tcp_need_cmd jq jq
[[ $procs =~ ^[0-9]+$ ]] && [ "$procs" -ge 2 ] && [ "$procs" -le 64 ] || tcp_fail "NETNS_PROCS=$procs: want 2..64"

TCP_TMP=$(mktemp -d)
tag=grsl$$
namespaces=()
pids=()
cleanup() {
  [ "$BASHPID" = $$ ] || return 0 # not in subshells, which inherit the trap
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  rm -rf "$TCP_TMP"
}
trap cleanup EXIT
tcp_build
if [ $# -eq 0 ]; then
  set -- bench allreduce-dense --sizes 1e6 --repeat 1 --dir "$TCP_TMP/bench"
fi

tcp_netns_hosts "$tag" "$procs" 232
tcp_shape_links "$tag" "$procs" "$rate"
echo "== $procs namespaces ${tag}-0..$((procs - 1)) on $net.1-$procs/24, bridge in ${tag}-sw, every link $rate each way (tbf, burst $burst B)"

echo "== graphrun $* (one process per namespace)"
token=$(tcp_token)
started=$(date +%s)
for ((i = 0; i < procs; i++)); do
  ip netns exec "$tag-$i" env GRAPHRUN_TOKEN="$token" GRAPHRUN_COORDINATOR="$net.1:7000" \
    "$GRAPHRUN" "$@" --rank "$i" --size "$procs" --listen "$net.$((i + 1))" \
    >"$TCP_TMP/out$i" 2>"$TCP_TMP/err$i" &
  pids[i]=$!
done
for ((i = 0; i < procs; i++)); do
  if ! wait "${pids[i]}"; then
    for ((j = 0; j < procs; j++)); do sed "s/^/rank $j: /" "$TCP_TMP/err$j" >&2; done
    tcp_fail "rank $i failed"
  fi
done
pids=()
echo "finished in $(($(date +%s) - started)) s; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$TCP_TMP/out0"
[ -s "$TCP_TMP/out0" ] || tcp_fail "rank 0 printed nothing"
for ((i = 0; i < procs; i++)); do
  tcp_link_bytes "$tag-$i"
  over=$(ip netns exec "$tag-$i" tc -j -s qdisc show dev eth0 | jq '[.[] | select(.kind == "tbf") | .overlimits] | add')
  echo "rank $i: sent $((tx / 1000000)) MB, received $((rx / 1000000)) MB through its $rate link (tbf held back $over packets)"
  [ "$tx" -gt 1000000 ] && [ "$rx" -gt 1000000 ] || tcp_fail "rank $i moved only $tx/$rx bytes through eth0"
done
echo "shaped-links: OK"
