# Helpers of the multi-process (TCP) CI scripts, sourced by .ci/tcp-*.sh.
# Not a script of its own.

export PATH="$PATH:/usr/local/go/bin:$HOME/go/bin"

# tcp_fail prints its arguments and exits 1.
tcp_fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# tcp_slashdot sets data to the Slashdot graph that ships in testdata/ (as
# internal/testgraph finds it), failing when it is missing.
tcp_slashdot() {
  data=testdata/soc-Slashdot0902.txt.gz
  [ -f "$data" ] || tcp_fail "$data is missing from the checkout"
}

# tcp_top20_close REF OUT WHAT: fails unless pagerank output OUT's top 20
# has REF's ids in REF's order with scores within a relative 1e-9 (a run
# whose sums ran in another order, on another number of ranks); WHAT names
# OUT's run in the failure.
tcp_top20_close() {
  local top20='$1 ~ /^[0-9]+$/ && NF == 3 && $1 <= 20'
  [ "$(awk "$top20" "$1" | wc -l)" = 20 ] || tcp_fail "the reference has no top 20"
  paste <(awk "$top20" "$1") <(awk "$top20" "$2") | awk '
    NF != 6 || $1 != $4 || $2 != $5 { bad = 1; print "differs: " $0 }
    { d = $3 - $6; if (d < 0) d = -d; if (d > 1e-9 * $3) { bad = 1; print "score differs: " $0 } }
    END { exit bad }' || tcp_fail "$3's top 20 differ from the reference"
}

# tcp_need_cmd CMD PACKAGE: installs the Debian PACKAGE if CMD is missing
# (apt-get as root). Fails loudly when it cannot.
tcp_need_cmd() {
  local cmd=$1 pkg=$2
  command -v "$cmd" >/dev/null 2>&1 && return 0
  echo "== installing $pkg (for $cmd)"
  if [ "$(id -u)" != 0 ]; then
    tcp_fail "$cmd is missing and this is not root: install the Debian package $pkg (apt-get install -y $pkg)"
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    tcp_fail "$cmd is missing and apt-get is unavailable: install $pkg by hand"
  fi
  apt-get update -qq || tcp_fail "apt-get update failed (needed to install $pkg)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null ||
    tcp_fail "apt-get install $pkg failed"
  command -v "$cmd" >/dev/null 2>&1 || tcp_fail "$pkg is installed but $cmd is still missing"
}

# tcp_scratch makes TCP_TMP a new scratch folder and sets the EXIT trap
# (tcp_cleanup) that kills -9 the processes listed in the array pids,
# deletes the network namespaces listed in the array namespaces and removes
# TCP_TMP. Both arrays start empty.
tcp_scratch() {
  TCP_TMP=$(mktemp -d)
  pids=()
  namespaces=()
  trap tcp_cleanup EXIT
}

# tcp_cleanup is tcp_scratch's EXIT trap.
tcp_cleanup() {
  [ "$BASHPID" = $$ ] || return 0 # not in subshells, which inherit the trap
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  rm -rf "$TCP_TMP"
}

# tcp_build sets GRAPHRUN to a graphrun binary: $GRAPHRUN_BIN if set,
# otherwise one built into $TCP_TMP.
tcp_build() {
  if [ -n "${GRAPHRUN_BIN:-}" ]; then
    GRAPHRUN=$GRAPHRUN_BIN
  else
    GRAPHRUN=$TCP_TMP/graphrun
    go build -o "$GRAPHRUN" ./cmd/graphrun
  fi
}

# tcp_free_port prints a TCP port of 127.0.0.1 that is free now.
tcp_free_port() {
  local port
  for port in $(shuf -i 20000-60000 -n 50); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  tcp_fail "no free port found"
}

# tcp_token prints 32 random bytes in hex.
tcp_token() {
  od -An -N32 -tx1 /dev/urandom | tr -d ' \n'
}

# tcp_shape FILE prints what must not depend on the transport: per search
# the root, nedge, the number of levels and every level's frontier size.
# It fails unless the run validated.
tcp_shape() {
  jq -e '.validated == true and .NBFS == (.searches | length)' "$1" >/dev/null ||
    tcp_fail "$1: the run did not validate (or NBFS does not match its searches)"
  jq -c '[.searches[] | [.root, .nedge, (.levels | length), [.levels[].frontier]]]' "$1"
}

# tcp_same_searches A B: the two runs' searches are identical.
tcp_same_searches() {
  local a b
  a=$(tcp_shape "$1") || exit 1
  b=$(tcp_shape "$2") || exit 1
  if [ "$a" != "$b" ]; then
    echo "$1: $a" | cut -c1-400 >&2
    echo "$2: $b" | cut -c1-400 >&2
    tcp_fail "the searches of $1 and $2 differ"
  fi
  echo "same $(jq '.NBFS' "$1") searches (root, nedge, levels, frontier sizes) in $1 and $2"
}

# tcp_graph500_block FILE RANKS: FILE holds a Graph500 block of RANKS processes.
tcp_graph500_block() {
  grep -q '^bfs  harmonic_mean_TEPS:' "$1" || tcp_fail "$1 has no Graph500 block"
  grep -Eq "^num_mpi_processes: +$2\$" "$1" || tcp_fail "$1 does not report $2 processes"
}

# tcp_netns_hosts TAG COUNT SECOND: makes COUNT network namespaces TAG-0 …
# TAG-(COUNT-1), each with one veth interface eth0 joined to a bridge br0
# in the namespace TAG-sw (port i of the bridge leads to TAG-i), on a /24
# of 10.SECOND.0.0/16 that no interface of this machine uses: TAG-i has
# address $net.(i+1), and net is set. Every namespace made is appended to
# the array namespaces, which the caller's cleanup removes.
tcp_netns_hosts() {
  local tag=$1 count=$2 second=$3 third i ns
  for third in $(shuf -i 1-254 -n 50); do
    net=10.$second.$third
    ip -4 -o addr show | grep -q " $net\." || break
  done
  ip netns add "$tag-sw"
  namespaces+=("$tag-sw")
  ip -n "$tag-sw" link add br0 type bridge
  ip -n "$tag-sw" link set br0 up
  for ((i = 0; i < count; i++)); do
    ns=$tag-$i
    ip netns add "$ns"
    namespaces+=("$ns")
    ip -n "$tag-sw" link add "port$i" type veth peer name eth0 netns "$ns"
    ip -n "$tag-sw" link set "port$i" master br0 up
    ip -n "$ns" addr add "$net.$((i + 1))/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
  done
}

# tcp_tbf_burst RATE sets rate_bytes to RATE (an integer with mbit or
# gbit) in bytes/s, and burst to the bucket of a tbf of RATE: at least one
# packet (64 KiB with segmentation offload or a 64 KB MTU) and one timer
# tick of tokens, 1 ms of the rate, at least 256 KiB.
tcp_tbf_burst() {
  local rate=$1
  [[ ${rate%?bit} =~ ^[0-9]+$ ]] || tcp_fail "rate $rate: give an integer with mbit or gbit, e.g. 1gbit"
  case $rate in
    *gbit) rate_bytes=$(( ${rate%gbit} * 1000000000 / 8 )) ;;
    *mbit) rate_bytes=$(( ${rate%mbit} * 1000000 / 8 )) ;;
    *) tcp_fail "rate $rate: give an integer with mbit or gbit, e.g. 1gbit" ;;
  esac
  burst=$(( rate_bytes / 1000 ))
  [ "$burst" -ge 262144 ] || burst=262144
}

# tcp_shape_links TAG COUNT RATE: a tbf of RATE on both ends of every
# link made by tcp_netns_hosts (egress of TAG-i's eth0: what rank i sends;
# egress of the switch's port i: what it receives), so each process owns a
# full-duplex link of RATE. Sets rate_bytes and burst.
tcp_shape_links() {
  local tag=$1 count=$2 rate=$3 i
  tcp_tbf_burst "$rate"
  for ((i = 0; i < count; i++)); do
    ip netns exec "$tag-$i" tc qdisc add dev eth0 root tbf rate "$rate" burst "$burst" latency 200ms
    ip netns exec "$tag-sw" tc qdisc add dev "port$i" root tbf rate "$rate" burst "$burst" latency 200ms
  done
}

# tcp_check_tbf NS DEV: fails unless the root qdisc of DEV in NS is a tbf
# of rate_bytes bytes/s (tc rounds the rate by less than 1%).
tcp_check_tbf() {
  local got
  got=$(ip netns exec "$1" tc -j qdisc show dev "$2" | jq '[.[] | select(.kind == "tbf" and .root == true) | .options.rate] | first // 0')
  awk -v g="$got" -v w="$rate_bytes" 'BEGIN { exit !(g > 0.99 * w && g < 1.01 * w) }' ||
    tcp_fail "$1 $2: the tbf rate reads back as $got B/s, want $rate_bytes"
}

# tcp_link_bytes NS: sets tx and rx to the bytes eth0 of the namespace NS
# has sent and received.
tcp_link_bytes() {
  local stats
  stats=$(ip -n "$1" -j -s link show eth0)
  tx=$(jq '.[0].stats64.tx.bytes' <<<"$stats")
  rx=$(jq '.[0].stats64.rx.bytes' <<<"$stats")
}
