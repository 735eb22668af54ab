#!/usr/bin/env bash
# graphrun under Open MPI's mpirun: four processes find their rank and size
# in OMPI_COMM_WORLD_RANK/SIZE, meet at GRAPHRUN_COORDINATOR with the
# GRAPHRUN_TOKEN that mpirun exports (-x), run TCP between themselves, and
# find the searches of the in-process run. Installs the Debian package
# openmpi-bin if mpirun is missing (as root); fails loudly if it cannot.
# Usage: bash .ci/tcp-mpirun.sh [SCALE] (default 18); GRAPHRUN_BIN=path skips the build.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/tcp-lib.sh
scale=${1:-18}
tcp_need_cmd mpirun openmpi-bin
tcp_need_cmd jq jq
tcp_scratch
tcp_build
mpirun --version | awk 'NR == 1' # not head: see .ci/mpi.sh

port=$(tcp_free_port)
echo "== mpirun -np 4 graphrun bfs --scale $scale (coordinator 127.0.0.1:$port)"
if ! mpirun --allow-run-as-root --oversubscribe -np 4 \
  -x GRAPHRUN_COORDINATOR="127.0.0.1:$port" -x GRAPHRUN_TOKEN="$(tcp_token)" \
  "$GRAPHRUN" bfs --scale "$scale" --json "$TCP_TMP/mpirun.json" >"$TCP_TMP/mpirun.out" 2>"$TCP_TMP/mpirun.err"; then
  cat "$TCP_TMP/mpirun.err" >&2
  tcp_fail "mpirun graphrun bfs failed"
fi
tcp_graph500_block "$TCP_TMP/mpirun.out" 4
[ "$(grep -c '^SCALE:' "$TCP_TMP/mpirun.out")" = 1 ] || tcp_fail "more than one rank printed a report"
for r in 0 1 2 3; do
  grep -q "rank $r of 4: listening for peers on 127.0.0.1:" "$TCP_TMP/mpirun.err" ||
    { cat "$TCP_TMP/mpirun.err" >&2; tcp_fail "rank $r of 4 did not join over TCP"; }
done
grep -E '^bfs  harmonic_mean_TEPS:' "$TCP_TMP/mpirun.out"

"$GRAPHRUN" bfs --scale "$scale" --ranks 4 --json "$TCP_TMP/ranks.json" >/dev/null
tcp_same_searches "$TCP_TMP/mpirun.json" "$TCP_TMP/ranks.json"
echo "tcp-mpirun: OK"
