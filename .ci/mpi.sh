#!/usr/bin/env bash
# graphrun's MPI backend (comm/mpi, build tag mpi) under Open MPI and under
# MPICH, side by side: installs openmpi-bin, libopenmpi-dev, mpich,
# libmpich-dev and pkg-config if missing (as root). For each library it
# builds graphrun and the comm/mpi test binary (-tags mpi for Open MPI,
# -tags mpi,mpich for MPICH), runs the transport conformance suite on four
# MPI processes, and runs `mpirun -np 2 graphrun bfs --scale 12` with no
# transport flags (MPI is the default under an MPI launcher), whose nedge
# statistics must equal the in-process --ranks 2 run's. Then, under Open
# MPI, end to end: graphrun bfs and graphrun pagerank over --transport mpi
# print exactly what the in-process --ranks 4 runs print (timings aside),
# bench transport runs, and a rank that fails (SIGTERM) or dies (kill -9)
# ends the whole job with a non-zero status within a bounded time.
# Every launcher is called by its explicit path (mpirun.openmpi,
# mpirun.mpich), whichever one the system's mpirun alternative points to.
# Usage: bash .ci/mpi.sh [SCALE] (default 16)
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/tcp-lib.sh
scale=${1:-16}
tcp_scratch
MPI_TMP=$TCP_TMP

# need_mpi installs both MPI libraries' launchers and development files and
# pkg-config (the build takes its flags from pkg-config's ompi or mpich
# module).
need_mpi() {
  if command -v mpirun.openmpi >/dev/null 2>&1 && command -v mpirun.mpich >/dev/null 2>&1 &&
    command -v pkg-config >/dev/null 2>&1 && pkg-config --exists ompi mpich 2>/dev/null; then
    return 0
  fi
  local pkgs="openmpi-bin libopenmpi-dev mpich libmpich-dev pkg-config"
  echo "== installing $pkgs"
  [ "$(id -u)" = 0 ] || tcp_fail "an MPI library is missing and this is not root: apt-get install -y $pkgs"
  command -v apt-get >/dev/null 2>&1 || tcp_fail "an MPI library is missing and apt-get is unavailable: install $pkgs by hand"
  apt-get update -qq || tcp_fail "apt-get update failed (needed to install the MPI libraries)"
  # shellcheck disable=SC2086 # the package list splits on spaces
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pkgs >/dev/null || tcp_fail "apt-get install $pkgs failed"
  pkg-config --exists ompi || tcp_fail "libopenmpi-dev is installed but pkg-config does not know ompi"
  pkg-config --exists mpich || tcp_fail "libmpich-dev is installed but pkg-config does not know mpich"
}
need_mpi
tcp_need_cmd jq jq
# awk reads the whole output: a reader that stops early (head, grep -m1)
# can leave mpirun to die of SIGPIPE, which pipefail makes this script's
# exit status (141).
mpirun.openmpi --version | awk 'NR == 1'
mpirun.mpich --version | awk '/Version/ && !shown { print; shown = 1 }'

# Four processes on this 2-core machine: --oversubscribe, and no binding
# (Go's runtime threads of a rank should not share one core). MPICH's
# Hydra neither binds nor limits the processes per core by default.
MPIRUN=(mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none)
MPIRUN_MPICH=(mpirun.mpich)

# mpi_library NAME TAGS MPIRUN...: builds graphrun and the comm/mpi tests
# with -tags TAGS into $MPI_TMP/NAME/, runs the conformance suite on four
# processes and `mpirun -np 2 graphrun bfs --scale 12` without transport
# flags, and leaves the binary in $GRAPHRUN.
mpi_library() {
  local name=$1 tags=$2
  shift 2
  local dir=$MPI_TMP/$name
  mkdir -p "$dir"
  echo "== $name: build with -tags $tags; go vet"
  go vet -tags "$tags" ./comm/mpi/ ./cmd/graphrun/
  GRAPHRUN=$dir/graphrun
  go build -tags "$tags" -o "$GRAPHRUN" ./cmd/graphrun
  go test -tags "$tags" -c -o "$dir/mpi.test" ./comm/mpi
  go test -tags "$tags" -count=1 -run 'TestTransportBadInput|TestPlanMPI|TestBenchTransport' ./cmd/graphrun

  echo "== $name: conformance suite on 1..4 ranks: mpirun -np 4 mpi.test"
  if ! timeout 600 "$@" -np 4 "$dir/mpi.test" -test.count=1 -test.v >"$dir/suite.out" 2>&1; then
    grep -v -e '^=== RUN' -e '--- PASS' "$dir/suite.out" >&2
    tcp_fail "the comm/mpi tests failed under $name's mpirun -np 4"
  fi
  [ "$(grep -c '^PASS$' "$dir/suite.out")" = 4 ] || { cat "$dir/suite.out" >&2; tcp_fail "$name: not every process passed"; }
  if grep -q -e '--- SKIP: TestConformance ' -e '--- SKIP: TestRun ' "$dir/suite.out"; then
    tcp_fail "$name: the tests skipped under mpirun"
  fi
  echo "$name: comm/mpi tests under mpirun -np 4: $(grep -c -e '--- PASS' "$dir/suite.out") tests and subtests passed over 4 processes, 0 failed"

  echo "== $name: mpirun -np 2 graphrun bfs --scale 12 (no transport flags: MPI by default)"
  if ! timeout 300 "$@" -np 2 "$GRAPHRUN" bfs --scale 12 --json "$dir/default.json" >"$dir/default.out" 2>"$dir/default.err"; then
    cat "$dir/default.err" >&2
    tcp_fail "$name: mpirun -np 2 graphrun bfs --scale 12 failed"
  fi
  tcp_graph500_block "$dir/default.out" 2
  [ "$(grep -c '^SCALE:' "$dir/default.out")" = 1 ] || tcp_fail "$name: more than one rank printed a report"
  grep -q 'listening for peers' "$dir/default.err" && tcp_fail "$name: the default transport under mpirun talked TCP"
  "$GRAPHRUN" bfs --scale 12 --ranks 2 --json "$dir/ranks.json" >"$dir/ranks.out"
  diff <(grep -E "$stats" "$dir/default.out") <(grep -E "$stats" "$dir/ranks.out") ||
    tcp_fail "$name: the nedge statistics of the default MPI run differ from the in-process run"
  tcp_same_searches "$dir/default.json" "$dir/ranks.json"
  echo "$name: mpirun -np 2 graphrun bfs --scale 12 ran over MPI; searches identical to --ranks 2"
}

# Everything but times, TEPS and the validation times: the graph, the keys'
# searches, nedge and its statistics.
stats='^(SCALE|edgefactor|NBFS|num_mpi_processes|[a-z_]*nedge):'

mpi_library mpich mpi,mpich "${MPIRUN_MPICH[@]}"
mpi_library openmpi mpi "${MPIRUN[@]}"

echo "== mpirun -np 4 graphrun bfs --scale $scale --transport mpi vs --ranks 4"
if ! timeout 600 "${MPIRUN[@]}" -np 4 "$GRAPHRUN" bfs --scale "$scale" --transport mpi --json "$MPI_TMP/mpi.json" \
  >"$MPI_TMP/mpi.out" 2>"$MPI_TMP/mpi.err"; then
  cat "$MPI_TMP/mpi.err" >&2
  tcp_fail "mpirun graphrun bfs --transport mpi failed"
fi
tcp_graph500_block "$MPI_TMP/mpi.out" 4
[ "$(grep -c '^SCALE:' "$MPI_TMP/mpi.out")" = 1 ] || tcp_fail "more than one rank printed a report"
grep -q 'listening for peers' "$MPI_TMP/mpi.err" && tcp_fail "--transport mpi talked TCP"
"$GRAPHRUN" bfs --scale "$scale" --ranks 4 --json "$MPI_TMP/ranks.json" >"$MPI_TMP/ranks.out"
diff <(grep -E "$stats" "$MPI_TMP/mpi.out") <(grep -E "$stats" "$MPI_TMP/ranks.out") ||
  tcp_fail "the nedge statistics over MPI differ from the in-process run"
echo "nedge statistics identical ($(grep -cE "$stats" "$MPI_TMP/mpi.out") lines)"
tcp_same_searches "$MPI_TMP/mpi.json" "$MPI_TMP/ranks.json"
grep -E '^bfs  harmonic_mean_TEPS:' "$MPI_TMP/mpi.out"

echo "== graphrun pagerank on Slashdot: mpirun -np 4 --transport mpi vs --ranks 4"
tcp_slashdot
if ! timeout 600 "${MPIRUN[@]}" -np 4 "$GRAPHRUN" pagerank "$data" --transport mpi --top 20 >"$MPI_TMP/pr-mpi.out" 2>"$MPI_TMP/pr-mpi.err"; then
  cat "$MPI_TMP/pr-mpi.err" >&2
  tcp_fail "mpirun graphrun pagerank --transport mpi failed"
fi
"$GRAPHRUN" pagerank "$data" --ranks 4 --top 20 >"$MPI_TMP/pr-ranks.out"
# Everything but the timing line: top 20, iterations, L1 change, total rank.
diff <(grep -v '^time \(per iteration\|of set-up\)' "$MPI_TMP/pr-mpi.out") <(grep -v '^time \(per iteration\|of set-up\)' "$MPI_TMP/pr-ranks.out") ||
  tcp_fail "pagerank over MPI differs from the in-process run"
echo "pagerank top 20 identical"

echo "== mpirun -np 2 graphrun bench transport --transport mpi"
timeout 300 "${MPIRUN[@]}" -np 2 "$GRAPHRUN" bench transport --transport mpi --sizes 1Ki,64Ki,1Mi --min-time 20ms --dir "$MPI_TMP/bench" >"$MPI_TMP/bench.out" 2>&1 ||
  { cat "$MPI_TMP/bench.out" >&2; tcp_fail "bench transport --transport mpi failed"; }
grep -q '^Alltoallv over mpi, 2 processes' "$MPI_TMP/bench.out" || { cat "$MPI_TMP/bench.out" >&2; tcp_fail "bench transport did not run over MPI"; }
grep -E '^\| 1 MiB \|' "$MPI_TMP/bench.out"

# rank_pid MPIRUN_PID RANK prints the pid of rank RANK among mpirun's children.
rank_pid() {
  local p
  for p in $(pgrep -P "$1" || true); do
    if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
      echo "$p"
      return 0
    fi
  done
}

# failing_rank SIGNAL: runs bfs on 4 MPI processes, sends SIGNAL to rank 2
# while it searches, and checks that mpirun exits non-zero within 60 s.
failing_rank() {
  local sig=$1 victim=2 deadline=60
  "${MPIRUN[@]}" -np 4 "$GRAPHRUN" bfs --scale 20 --transport mpi >"$MPI_TMP/fail.out" 2>"$MPI_TMP/fail.err" &
  local launcher=$!
  pids=("$launcher")
  local pid="" tries=0
  while [ -z "$pid" ] && [ $tries -lt 100 ]; do
    sleep 0.2
    pid=$(rank_pid "$launcher" $victim)
    tries=$((tries + 1))
  done
  [ -n "$pid" ] || { cat "$MPI_TMP/fail.err" >&2; tcp_fail "no process of rank $victim under mpirun"; }
  sleep 6 # into kernel 1 or the searches
  kill -0 "$launcher" 2>/dev/null || { cat "$MPI_TMP/fail.err" >&2; tcp_fail "the job ended before rank $victim got SIG$sig"; }
  kill -s "$sig" "$pid"
  local killed_at=$SECONDS
  while kill -0 "$launcher" 2>/dev/null && [ "$(cut -d' ' -f3 "/proc/$launcher/stat" 2>/dev/null)" != Z ]; do
    [ $((SECONDS - killed_at)) -lt $deadline ] || tcp_fail "mpirun still runs $deadline s after rank $victim got SIG$sig"
    sleep 0.2
  done
  local rc=0
  wait "$launcher" || rc=$?
  pids=()
  [ "$rc" != 0 ] || { cat "$MPI_TMP/fail.err" >&2; tcp_fail "mpirun exited 0 after rank $victim got SIG$sig"; }
  echo "SIG$sig to rank $victim: mpirun exited $rc after $((SECONDS - killed_at)) s"
}

echo "== a failing rank: SIGTERM to rank 2 of a running bfs; the others fail, naming it"
failing_rank TERM
# mpirun ends the job as soon as the first survivor exits non-zero, so the
# slower survivors may be killed before they print: at least one survivor
# must name rank 2, and no survivor may blame anyone else.
named=$(grep -cE 'rank [013] of 4: the job failed because of rank 2' "$MPI_TMP/fail.err" || true)
[ "$named" -ge 1 ] || { cat "$MPI_TMP/fail.err" >&2; tcp_fail "no surviving rank names the failed rank 2"; }
if grep -E 'rank [013] of 4: the job failed because of rank [013]' "$MPI_TMP/fail.err"; then
  tcp_fail "a survivor blames a rank other than 2"
fi
echo "$named of 3 survivors reported before mpirun ended the job, each naming rank 2"
grep -m1 -E 'rank [013] of 4: the job failed because of rank 2' "$MPI_TMP/fail.err" | cut -c1-200

echo "== a dying rank: kill -9 of rank 2; mpirun ends the job"
failing_rank KILL
echo "mpi: OK"
