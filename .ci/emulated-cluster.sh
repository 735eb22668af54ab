#!/usr/bin/env bash
# An emulated cluster of equal nodes on one machine: the way graphrun's
# distributed numbers are measured here (BENCHMARKS.md, "The emulated
# cluster"). P processes, each
#   - in a network namespace of its own, with one veth link shaped by tc tbf
#     to NETNS_RATE in both directions (what it sends, what it receives), as
#     each node of a cluster owns its NIC on a non-blocking switch;
#   - behind a one-way latency of NETNS_DELAY on every frame: tc netem on
#     the switch ports where the kernel has sch_netem, otherwise (this
#     machine's Firecracker kernel has only tbf, htb and pfifo) the links
#     join in `graphrun bench net-switch`, a learning switch that holds
#     each frame NETNS_DELAY (bench/netemu) instead of a kernel bridge;
#   - with an equal CPU share NETNS_CPU, a CFS quota in a cgroup of its own
#     (cgroup v1 cpu controller, or v2 cpu.max), so that a rank with more
#     work waits for the CPU instead of taking it from the others, and
#     load imbalance shows as time;
#   - optionally under a memory limit NETNS_MEM (bytes, e.g. 2Gi).
# The rank cgroups sit under one parent with the highest CPU weight (v1
# shares 262144, v2 weight 10000; the defaults are 1024 and 100), so that
# other jobs on the machine disturb the emulated nodes and the switch less;
# the quotas keep the ranks to P × NETNS_CPU cores all the same. The bytes
# really cross the kernel's TCP stack, the shaped links and the delay;
# nothing is modelled.
# The script reads back every process's cgroup, quota, memory limit and
# link, and the delay of the frames, and fails when one was not applied.
# It prints the load average (uptime) at the start and the end.
#
# Not modelled: the memory bandwidth, caches and cores all processes
# share; one physical machine's scheduler (a quota is enforced per
# NETNS_CPU_PERIOD, so a rank runs in bursts of that length at most); loss
# and jitter of a real network (the delay is constant, plus the switch's
# own wait for a CPU, which the read-back reports).
#
# Usage: bash .ci/emulated-cluster.sh GRAPHRUN ARGS...
#   The arguments are a graphrun command and its flags; the script adds
#   --rank, --size and --listen. Settings (environment):
#     NETNS_PROCS    processes (default 4, 2..64)
#     NETNS_RATE     link rate per process, integer mbit or gbit (100mbit)
#     NETNS_DELAY    one-way latency, e.g. 1ms, 500us, 0 for none (1ms)
#     NETNS_CPU      CPU share per process in cores, e.g. 0.25 (0.25);
#                    P × NETNS_CPU should stay below the machine's cores
#     NETNS_CPU_PERIOD  the quota's period in µs (10000, raised so that
#                    the quota is at least the kernel's 1000 µs): a process
#                    that used its share waits for the next period, so a
#                    short period spreads its work as a slower CPU would
#     NETNS_MEM      memory limit per process in bytes, with graphrun's
#                    unit syntax: 2G = 2·10^9, 2Gi = 2^31 (none)
#     NETNS_TIMEOUT  seconds before the run is killed (600)
#     GRAPHRUN_BIN   a graphrun binary (default: built here)
# Needs root. The root namespace is not touched; namespaces and cgroups
# are removed on exit. .ci/emulated-bench.sh runs BENCHMARKS.md's matrices
# on it.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/tcp-lib.sh
procs=${NETNS_PROCS:-4}
rate=${NETNS_RATE:-100mbit}
delay=${NETNS_DELAY:-1ms}
cpu=${NETNS_CPU:-0.25}
mem=${NETNS_MEM:-}
limit=${NETNS_TIMEOUT:-600}
[ "$(id -u)" = 0 ] || tcp_fail "network namespaces and cgroups need root"
[ $# -gt 0 ] || tcp_fail "usage: bash .ci/emulated-cluster.sh GRAPHRUN-COMMAND [FLAGS...]"
tcp_need_cmd ip iproute2
tcp_need_cmd tc iproute2
tcp_need_cmd jq jq
[[ $procs =~ ^[0-9]+$ ]] && [ "$procs" -ge 2 ] && [ "$procs" -le 64 ] || tcp_fail "NETNS_PROCS=$procs: want 2..64"
[[ $limit =~ ^[0-9]+$ ]] && [ "$limit" -ge 1 ] || tcp_fail "NETNS_TIMEOUT=$limit: want whole seconds"
case $delay in
  0) delay_us=0 ;;
  *us) delay_us=${delay%us} ;;
  *ms) delay_us=$(awk -v d="${delay%ms}" 'BEGIN { printf "%d", d * 1000 }') ;;
  *) tcp_fail "NETNS_DELAY=$delay: give it in us or ms (e.g. 1ms), or 0" ;;
esac
[[ $delay_us =~ ^[0-9]+$ ]] && [ "$delay_us" -le 1000000 ] || tcp_fail "NETNS_DELAY=$delay: want 0 to 1000ms"
awk -v c="$cpu" -v n="$(nproc)" 'BEGIN { exit !(c ~ /^[0-9]*\.?[0-9]+$/ && c >= 0.01 && c <= n) }' ||
  tcp_fail "NETNS_CPU=$cpu: want cores from 0.01 to $(nproc)"
period=${NETNS_CPU_PERIOD:-10000}
[[ $period =~ ^[0-9]+$ ]] && [ "$period" -ge 1000 ] && [ "$period" -le 1000000 ] || tcp_fail "NETNS_CPU_PERIOD=$period: want 1000..1000000 µs"
[ -n "${NETNS_CPU_PERIOD:-}" ] || period=$(awk -v c="$cpu" -v p="$period" 'BEGIN { q = 1000 / c; printf "%d", (q > p ? q + 0.999 : p) }')
quota=$(awk -v c="$cpu" -v p="$period" 'BEGIN { printf "%d", c * p }')
[ "$quota" -ge 1000 ] || tcp_fail "NETNS_CPU=$cpu of a $period µs period is a quota of $quota µs, below the kernel's 1000: give a longer NETNS_CPU_PERIOD"
mem_bytes=
if [ -n "$mem" ]; then
  mem_bytes=$(awk -v m="$mem" 'BEGIN {
    m = m; sub(/B$/, "", m); s = 1
    if (m ~ /Ki$/) s = 2^10; else if (m ~ /Mi$/) s = 2^20; else if (m ~ /Gi$/) s = 2^30
    else if (m ~ /[kK]$/) s = 1e3; else if (m ~ /M$/) s = 1e6; else if (m ~ /G$/) s = 1e9
    sub(/([KMG]i|[kKMG])$/, "", m)
    if (m !~ /^[0-9]+(\.[0-9]+)?$/ || m * s < 1048576) exit 1
    printf "%.0f", m * s }') || tcp_fail "NETNS_MEM=$mem: want at least 1Mi bytes, e.g. 2Gi or 2G (k, M, G = 10^3, 10^6, 10^9; Ki, Mi, Gi = 2^10, 2^20, 2^30)"
fi

TCP_TMP=$(mktemp -d)
tag=gremu$$
namespaces=()
pids=()
cgroups=() # removed on exit, children first
switch_pid=
cleanup() {
  [ "$BASHPID" = $$ ] || return 0 # not in subshells, which inherit the trap
  local k p
  # Every process this script started is in one of its cgroups (timeout,
  # ip netns exec and graphrun below each rank's subshell): kill them all,
  # and wait until the groups are empty so that they can be removed.
  for p in "${pids[@]}" $switch_pid; do kill -9 "$p" 2>/dev/null || true; done
  for _ in $(seq 50); do
    local left=0
    for ((k = ${#cgroups[@]} - 1; k >= 0; k--)); do
      for p in $(cat "${cgroups[k]}/cgroup.procs" 2>/dev/null); do
        kill -9 "$p" 2>/dev/null || true
        left=1
      done
    done
    [ $left = 1 ] || break
    sleep 0.1
  done
  for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  for ((k = ${#cgroups[@]} - 1; k >= 0; k--)); do
    [ ! -d "${cgroups[k]}" ] || rmdir "${cgroups[k]}" || echo "cleanup: could not remove cgroup ${cgroups[k]}" >&2
  done
  rm -rf "$TCP_TMP"
}
trap 'exit 143' TERM
trap 'exit 130' INT
trap cleanup EXIT
tcp_build

# The CPU controller: cgroup v1 (a cpu hierarchy) or v2 (the unified one).
if [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
  cgv=1
  cpu_parent=/sys/fs/cgroup/cpu/graphrun-emu-$$
  cgroups+=("$cpu_parent") # before mkdir: an interrupt in between leaves nothing
  mkdir "$cpu_parent"
  echo 262144 >"$cpu_parent/cpu.shares"
elif grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
  cgv=2
  cpu_parent=/sys/fs/cgroup/graphrun-emu-$$
  echo +cpu >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
  cgroups+=("$cpu_parent") # before mkdir: an interrupt in between leaves nothing
  mkdir "$cpu_parent"
  echo 10000 >"$cpu_parent/cpu.weight"
  ctl=+cpu
  [ -z "$mem_bytes" ] || ctl="+cpu +memory"
  echo "$ctl" >"$cpu_parent/cgroup.subtree_control"
else
  tcp_fail "no writable cgroup cpu controller (neither /sys/fs/cgroup/cpu nor cgroup v2 with cpu)"
fi
# v1 keeps memory in its own hierarchy: the rank groups go below this
# shell's memory cgroup, so whatever limits and accounts it still does.
mem_parent=
if [ -n "$mem_bytes" ]; then
  if [ $cgv = 1 ]; then
    here=$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
    mem_parent=/sys/fs/cgroup/memory${here%/}/graphrun-emu-$$
    cgroups+=("$mem_parent")
    mkdir "$mem_parent" || tcp_fail "cannot make the memory cgroup $mem_parent"
  else
    mem_parent=$cpu_parent
  fi
fi
for ((i = 0; i < procs; i++)); do
  g=$cpu_parent/rank-$i
  cgroups+=("$g")
  mkdir "$g"
  if [ $cgv = 1 ]; then
    echo $period >"$g/cpu.cfs_period_us"
    echo "$quota" >"$g/cpu.cfs_quota_us"
    [ "$(cat "$g/cpu.cfs_quota_us") $(cat "$g/cpu.cfs_period_us")" = "$quota $period" ] ||
      tcp_fail "rank $i: the cpu quota reads back as $(cat "$g/cpu.cfs_quota_us")/$(cat "$g/cpu.cfs_period_us"), want $quota/$period"
  else
    echo "$quota $period" >"$g/cpu.max"
    [ "$(cat "$g/cpu.max")" = "$quota $period" ] || tcp_fail "rank $i: cpu.max reads back as $(cat "$g/cpu.max"), want $quota $period"
  fi
  if [ -n "$mem_bytes" ]; then
    m=$mem_parent/rank-$i
    [ -d "$m" ] || { cgroups+=("$m"); mkdir "$m"; }
    if [ $cgv = 1 ]; then
      echo "$mem_bytes" >"$m/memory.limit_in_bytes"
      got=$(cat "$m/memory.limit_in_bytes")
    else
      echo "$mem_bytes" >"$m/memory.max"
      got=$(cat "$m/memory.max")
    fi
    # The kernel rounds a limit down to whole pages.
    [ $((mem_bytes - got)) -ge 0 ] && [ $((mem_bytes - got)) -lt 4096 ] ||
      tcp_fail "rank $i: the memory limit reads back as $got, want $mem_bytes"
  fi
done

# The network: one namespace per process on a switch namespace.
tcp_netns_hosts "$tag" "$procs" 233
tcp_shape_links "$tag" "$procs" "$rate"
how="no latency (kernel bridge)"
if [ "$delay_us" -gt 0 ]; then
  if ip netns exec "$tag-sw" tc qdisc add dev port0 parent root handle 1: netem delay 1ms 2>/dev/null; then
    # netem before each switch port's tbf: the frames towards rank i wait
    # NETNS_DELAY, then leave at NETNS_RATE.
    ip netns exec "$tag-sw" tc qdisc del dev port0 root
    for ((i = 0; i < procs; i++)); do
      ip netns exec "$tag-sw" tc qdisc del dev "port$i" root
      ip netns exec "$tag-sw" tc qdisc add dev "port$i" root handle 1: netem delay "${delay_us}us" limit 100000
      ip netns exec "$tag-sw" tc qdisc add dev "port$i" parent 1:1 handle 10: tbf rate "$rate" burst "$burst" latency 200ms
    done
    how="one-way latency $delay (tc netem on the switch ports)"
  else
    # No netem: the ports leave the bridge and net-switch joins them
    # (offloaded TCP segments cross it whole, as they cross a bridge).
    ports=
    for ((i = 0; i < procs; i++)); do
      ip -n "$tag-sw" link set "port$i" nomaster
      ports+=${ports:+,}port$i
    done
    ip -n "$tag-sw" link del br0
    # The switch gets a cgroup of its own beside the ranks', with no quota
    # and the highest weight: it needs little CPU, but needs it at once.
    cgroups+=("$cpu_parent/switch")
    mkdir "$cpu_parent/switch"
    if [ $cgv = 1 ]; then echo 262144 >"$cpu_parent/switch/cpu.shares"; else echo 10000 >"$cpu_parent/switch/cpu.weight"; fi
    (echo "$BASHPID" >"$cpu_parent/switch/cgroup.procs"; exec ip netns exec "$tag-sw" "$GRAPHRUN" bench net-switch --delay "${delay_us}us" --ports "$ports" --stats-every 500ms) \
      >"$TCP_TMP/switch" 2>"$TCP_TMP/switch.err" &
    switch_pid=$!
    disown "$switch_pid" # killed by cleanup, without bash reporting it
    for _ in $(seq 50); do grep -q '^frames ' "$TCP_TMP/switch" && break; sleep 0.1; done
    grep -q '^frames ' "$TCP_TMP/switch" || { cat "$TCP_TMP/switch.err" >&2; tcp_fail "net-switch did not start"; }
    how="one-way latency $delay (graphrun bench net-switch: this kernel has no tc netem)"
  fi
fi
for ((i = 0; i < procs; i++)); do
  tcp_check_tbf "$tag-$i" eth0
  [ "$delay_us" -gt 0 ] && [ -z "$switch_pid" ] && continue # netem is the root there, tbf its child
  tcp_check_tbf "$tag-sw" "port$i"
done

cpu_desc="$cpu core each ($quota/$period µs, cgroup v$cgv, parent ${cpu_parent##*/} with a high weight)"
mem_desc=${mem_bytes:+, memory limit $mem_bytes B each}
echo "== emulated cluster: $procs processes, links $rate each way (tbf, burst $burst B), $how, CPU $cpu_desc$mem_desc"
# The quotas are shares of what is left after the switch and the kernel's
# network work; when they add up to the whole machine, the ranks also wait
# for the machine, not only for their quota (measured: 1.7-1.9
# of 2 cores busy at 16 x 0.125).
awk -v p="$procs" -v c="$cpu" -v n="$(nproc)" 'BEGIN { exit !(p * c >= n) }' &&
  echo "== note: $procs x $cpu = $(awk -v p="$procs" -v c="$cpu" 'BEGIN { print p * c }') cores, all $(nproc) of this machine's: the ranks share them with the switch and the kernel's network work"
echo "== load at the start: $(uptime)"
echo "== graphrun $* (one process per namespace)"
token=$(tcp_token)
started=$(date +%s.%N)
for ((i = 0; i < procs; i++)); do
  (
    echo "$BASHPID" >"$cpu_parent/rank-$i/cgroup.procs"
    [ -z "$mem_parent" ] || [ "$mem_parent" = "$cpu_parent" ] || echo "$BASHPID" >"$mem_parent/rank-$i/cgroup.procs"
    exec timeout --kill-after=5 "$limit" ip netns exec "$tag-$i" env GRAPHRUN_TOKEN="$token" GRAPHRUN_COORDINATOR="$net.1:7000" \
      "$GRAPHRUN" "$@" --rank "$i" --size "$procs" --listen "$net.$((i + 1))"
  ) >"$TCP_TMP/out$i" 2>"$TCP_TMP/err$i" &
  pids[i]=$!
done
# Read back that every process runs in its rank's cgroup (the subshell
# moves itself there before it starts graphrun).
for ((i = 0; i < procs; i++)); do
  want=/${cpu_parent##*/}/rank-$i
  for _ in $(seq 100); do
    if [ $cgv = 1 ]; then
      got=$(awk -F: '$2 == "cpu" || $2 ~ /(^|,)cpu(,|$)/ { print $3 }' "/proc/${pids[i]}/cgroup" 2>/dev/null || true)
    else
      got=$(awk -F: '$1 == "0" { print $3 }' "/proc/${pids[i]}/cgroup" 2>/dev/null || true)
    fi
    [ "$got" = "$want" ] && break
    [ -d "/proc/${pids[i]}" ] || break
    sleep 0.02
  done
  [ "$got" = "$want" ] || [ ! -d "/proc/${pids[i]}" ] || tcp_fail "rank $i runs in cgroup $got, want $want"
done
failed=
for ((i = 0; i < procs; i++)); do
  code=0
  wait "${pids[i]}" || code=$?
  if [ "$code" != 0 ]; then
    failed="rank $i failed (exit $code)"
    [ "$code" != 124 ] || failed="rank $i was killed after NETNS_TIMEOUT=$limit s"
    break
  fi
done
if [ -n "$failed" ]; then
  for ((j = 0; j < procs; j++)); do sed "s/^/rank $j: /" "$TCP_TMP/err$j" | tail -20 >&2; done
  [ -z "$switch_pid" ] || { tail -1 "$TCP_TMP/switch"; cat "$TCP_TMP/switch.err"; } | sed "s/^/net-switch: /" >&2
  tcp_fail "$failed"
fi
pids=()
echo "finished in $(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s"
echo "== load at the end: $(uptime)"
cat "$TCP_TMP/out0"
[ -s "$TCP_TMP/out0" ] || tcp_fail "rank 0 printed nothing"
for ((i = 0; i < procs; i++)); do
  tcp_link_bytes "$tag-$i"
  if [ $cgv = 1 ]; then
    read -r periods throttled throttled_ns < <(awk '$1 == "nr_periods" { p = $2 } $1 == "nr_throttled" { t = $2 } $1 == "throttled_time" { n = $2 } END { printf "%.0f %.0f %.0f\n", p, t, n }' "$cpu_parent/rank-$i/cpu.stat")
  else
    read -r periods throttled throttled_ns < <(awk '$1 == "nr_periods" { p = $2 } $1 == "nr_throttled" { t = $2 } $1 == "throttled_usec" { n = $2 * 1000 } END { printf "%.0f %.0f %.0f\n", p, t, n }' "$cpu_parent/rank-$i/cpu.stat")
  fi
  echo "rank $i: sent $((tx / 1000)) kB, received $((rx / 1000)) kB; CPU quota enforced in $periods periods, throttled in $throttled ($((throttled_ns / 1000000)) ms)"
  [ "$tx" -gt 10000 ] && [ "$rx" -gt 10000 ] || tcp_fail "rank $i moved only $tx/$rx bytes through eth0"
  [ "$periods" -gt 0 ] || tcp_fail "rank $i: its cgroup saw no CPU quota period (the quota was not applied)"
done
if [ -n "$switch_pid" ]; then
  sleep 0.6
  read -r _ frames _ dropped _ min_us _ mean_us _ max_us < <(grep '^frames ' "$TCP_TMP/switch" | tail -1)
  echo "net-switch: $frames frames forwarded, $dropped dropped, each held $min_us to $max_us µs, $mean_us on average (delay $delay_us µs; the rest is the switch waiting for a CPU)"
  [ "$frames" -gt 0 ] || tcp_fail "net-switch forwarded no frames"
  [ "$min_us" -ge "$delay_us" ] || tcp_fail "net-switch held a frame only $min_us µs, want at least $delay_us"
fi
echo "emulated-cluster: OK"
