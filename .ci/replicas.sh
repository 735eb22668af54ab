#!/usr/bin/env bash
# Replication with packet racing (Kylix §V): PageRank on Slashdot with
# 4 logical ranks × --replicas 2 over TCP (8 processes under --procs). One
# run is left alone; in a second one process is SIGKILLed mid-run. Both must
# print what an unreplicated --procs 4 run prints (top-k lines, iterations,
# final L1 change, total rank: every line but the timing one), and the
# killed run's launcher must exit 0 and report the lost replica.
# Then a whole replica group is killed: the launcher must fail within
# bounded time and the survivors must name the lost logical rank.
# Usage: bash .ci/replicas.sh; GRAPHRUN_BIN=path skips the build.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/tcp-lib.sh
tcp_scratch
tcp_build
tcp_slashdot
# Enough iterations that a kill after a few seconds lands in the iterations.
args=(pagerank "$data" --iterations 600 --top 20 --peer-timeout 10s)
strip() { grep -v '^time \(per iteration\|of set-up\)' "$1"; }

echo "== reference: --procs 4, no replicas"
"$GRAPHRUN" "${args[@]}" --procs 4 >"$TCP_TMP/ref.out" 2>"$TCP_TMP/ref.err" ||
  { cat "$TCP_TMP/ref.err" >&2; tcp_fail "the reference run failed"; }
grep -q '^iterations' "$TCP_TMP/ref.out" || { cat "$TCP_TMP/ref.out" >&2; tcp_fail "no summary in the reference output"; }

echo "== --procs 4 --replicas 2, unkilled"
"$GRAPHRUN" "${args[@]}" --procs 4 --replicas 2 >"$TCP_TMP/rep.out" 2>"$TCP_TMP/rep.err" ||
  { cat "$TCP_TMP/rep.err" >&2; tcp_fail "the replicated run failed"; }
diff <(strip "$TCP_TMP/ref.out") <(strip "$TCP_TMP/rep.out") || tcp_fail "the replicated run's output differs from the reference"

# run_killed NAME VICTIMS...: starts the replicated run, SIGKILLs the given
# processes (by --rank, which counts processes) once the iterations run,
# and waits for the launcher (at most 60 s); sets exit_rc.
run_killed() {
  local name=$1; shift
  "$GRAPHRUN" "${args[@]}" --procs 4 --replicas 2 >"$TCP_TMP/$name.out" 2>"$TCP_TMP/$name.err" &
  local launcher=$!
  pids=("$launcher")
  local start=$SECONDS
  until grep -q 'PageRank iteration' "$TCP_TMP/$name.err" 2>/dev/null || [ $((SECONDS - start)) -ge 4 ]; do sleep 0.2; done
  sleep 1
  for v in "$@"; do
    local child
    child=$(pgrep -P "$launcher" -f -- "--rank=$v( |\$)" || true)
    [ -n "$child" ] || { cat "$TCP_TMP/$name.err" >&2; tcp_fail "$name: no process $v under the launcher (did the run end before the kill?)"; }
    kill -9 "$child"
  done
  local killed_at=$SECONDS
  while kill -0 "$launcher" 2>/dev/null && [ "$(cut -d' ' -f3 "/proc/$launcher/stat" 2>/dev/null)" != Z ]; do
    [ $((SECONDS - killed_at)) -lt 60 ] || tcp_fail "$name: the launcher still runs 60 s after the kill"
    sleep 0.2
  done
  exit_rc=0
  wait "$launcher" || exit_rc=$?
  echo "$name: launcher exit $exit_rc, $((SECONDS - killed_at)) s after the kill"
  pids=()
}

echo "== --procs 4 --replicas 2, kill -9 process 5 (replica 1 of rank 1) mid-run"
run_killed one 5
[ "$exit_rc" = 0 ] || { cat "$TCP_TMP/one.err" >&2; tcp_fail "the run with one lost replica exited $exit_rc"; }
grep -q 'process 5 (replica 1 of rank 1) was killed by signal 9' "$TCP_TMP/one.err" ||
  { cat "$TCP_TMP/one.err" >&2; tcp_fail "the launcher does not report the lost replica"; }
diff <(strip "$TCP_TMP/ref.out") <(strip "$TCP_TMP/one.out") || tcp_fail "the output after losing a replica differs from the reference"

echo "== --procs 4 --replicas 2, kill -9 processes 2 and 6 (both replicas of rank 2)"
run_killed group 2 6
[ "$exit_rc" != 0 ] || tcp_fail "the run that lost both replicas of rank 2 exited 0"
for r in 0 1 3; do
  grep -q "^rank $r: .*rank $r of 4: the job failed because of rank 2" "$TCP_TMP/group.err" ||
    { cat "$TCP_TMP/group.err" >&2; tcp_fail "process $r does not name the lost rank 2"; }
done

# Elastic recovery (Zhang and Qiu §II, §V): --procs 4 --elastic, no replicas;
# process 2 SIGKILLed mid-run. The survivors shrink to 3 ranks and finish:
# the launcher exits 0 and the top 20 equal the unkilled reference's (same
# ids in the same order, scores within a relative 1e-9: the restart takes
# another path to the same fixed point, so bits may differ).
echo "== --procs 4 --elastic, kill -9 process 2 mid-run"
# 3000 iterations (the reference's 600 are converged to the last bit long
# before): the run must outlast the wait for its processes and the kill.
eargs=(pagerank "$data" --iterations 3000 --top 20 --peer-timeout 10s)
"$GRAPHRUN" "${eargs[@]}" --procs 4 --elastic >"$TCP_TMP/elastic.out" 2>"$TCP_TMP/elastic.err" &
launcher=$!
pids=("$launcher")
start=$SECONDS
child=""
until [ -n "$child" ] || [ $((SECONDS - start)) -ge 20 ]; do
  sleep 0.2
  child=$(pgrep -P "$launcher" -f -- "--rank=2( |\$)" || true)
done
[ -n "$child" ] || { cat "$TCP_TMP/elastic.err" >&2; tcp_fail "elastic: no process 2 under the launcher"; }
sleep 2 # past reading the input, into the iterations
kill -0 "$child" 2>/dev/null || { cat "$TCP_TMP/elastic.err" >&2; tcp_fail "elastic: the run ended before the kill"; }
kill -9 "$child"
killed_at=$SECONDS
elastic_rc=0
timeout 90 tail --pid="$launcher" -f /dev/null || tcp_fail "elastic: the launcher still runs 90 s after the kill"
wait "$launcher" || elastic_rc=$?
pids=()
echo "elastic: launcher exit $elastic_rc, $((SECONDS - killed_at)) s after the kill"
[ "$elastic_rc" = 0 ] || { cat "$TCP_TMP/elastic.err" >&2; tcp_fail "the elastic run exited $elastic_rc"; }
grep -q 'process 2 was killed by signal 9.*survivors finished' "$TCP_TMP/elastic.err" ||
  { cat "$TCP_TMP/elastic.err" >&2; tcp_fail "the launcher does not report the lost process"; }
grep 'elastic: recovery 1' "$TCP_TMP/elastic.err" || { cat "$TCP_TMP/elastic.err" >&2; tcp_fail "rank 0 reports no recovery"; }
tcp_top20_close "$TCP_TMP/ref.out" "$TCP_TMP/elastic.out" "the elastic run"
echo "replicas: OK"
