#!/usr/bin/env bash
# A lost rank fails the whole TCP job: kill -9 one rank of a running
# graphrun bfs --scale 20 and check that every other rank exits non-zero
# within 35 s and names the lost rank on stderr. Done twice: with four ranks
# started by hand (--rank/--size, GRAPHRUN_COORDINATOR, GRAPHRUN_TOKEN), and
# with the --procs launcher, whose exit status must be the killed rank's.
# Usage: bash .ci/tcp-kill.sh [SCALE] (default 20); GRAPHRUN_BIN=path skips the build.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/tcp-lib.sh
scale=${1:-20}
tcp_scratch
tcp_build
victim=2
deadline=35

# wait_exit PID SECONDS: waits for PID (a child of this shell) and sets
# exit_rc to its exit status; fails if it still runs after SECONDS.
wait_exit() {
  local pid=$1 limit=$2 start=$SECONDS
  # Until it is a zombie (state Z) or gone.
  while [ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" != Z ] && kill -0 "$pid" 2>/dev/null; do
    [ $((SECONDS - start)) -lt "$limit" ] || tcp_fail "process $pid still runs $limit s after the kill"
    sleep 0.2
  done
  exit_rc=0
  wait "$pid" || exit_rc=$?
}

echo "== four ranks by hand, scale $scale; kill -9 rank $victim"
export GRAPHRUN_COORDINATOR=127.0.0.1:$(tcp_free_port)
export GRAPHRUN_TOKEN=$(tcp_token)
for r in 0 1 2 3; do
  "$GRAPHRUN" bfs --scale "$scale" --rank "$r" --size 4 --threads 1 >"$TCP_TMP/out$r" 2>"$TCP_TMP/err$r" &
  pids[r]=$!
done
sleep 6
for r in 0 1 2 3; do
  kill -0 "${pids[r]}" 2>/dev/null || { cat "$TCP_TMP/err$r" >&2; tcp_fail "rank $r ended before the kill"; }
done
kill -9 "${pids[victim]}"
killed_at=$SECONDS
wait "${pids[victim]}" 2>/dev/null || true
for r in 0 1 3; do
  left=$((deadline - (SECONDS - killed_at)))
  wait_exit "${pids[r]}" "$left"
  rc=$exit_rc
  [ "$rc" != 0 ] || tcp_fail "rank $r exited 0 after rank $victim was killed"
  grep -q "rank $r of 4: the job failed because of rank $victim" "$TCP_TMP/err$r" ||
    { cat "$TCP_TMP/err$r" >&2; tcp_fail "rank $r's error does not name the lost rank $victim"; }
  echo "rank $r: exit $rc after $((SECONDS - killed_at)) s: $(grep -m1 'the job failed because of rank' "$TCP_TMP/err$r" | cut -c1-160)"
done
unset GRAPHRUN_COORDINATOR GRAPHRUN_TOKEN
pids=()

echo "== graphrun bfs --scale $scale --procs 4; kill -9 the process of rank $victim"
"$GRAPHRUN" bfs --scale "$scale" --procs 4 >"$TCP_TMP/launcher.out" 2>"$TCP_TMP/launcher.err" &
launcher=$!
pids=("$launcher")
sleep 6
child=$(pgrep -P "$launcher" -f -- "--rank=$victim( |\$)" || true)
[ -n "$child" ] || { cat "$TCP_TMP/launcher.err" >&2; tcp_fail "no process of rank $victim under the launcher"; }
kill -9 "$child"
killed_at=$SECONDS
wait_exit "$launcher" "$deadline"
rc=$exit_rc
echo "launcher: exit $rc after $((SECONDS - killed_at)) s"
[ "$rc" = $((128 + 9)) ] || { cat "$TCP_TMP/launcher.err" >&2; tcp_fail "the launcher exited $rc, want 137 (rank $victim's SIGKILL)"; }
grep -q "rank $victim was killed by signal 9" "$TCP_TMP/launcher.err" ||
  { cat "$TCP_TMP/launcher.err" >&2; tcp_fail "the launcher does not report rank $victim's death"; }
for r in 0 1 3; do
  grep -q "^rank $r: graphrun: rank $r of 4: the job failed because of rank $victim" "$TCP_TMP/launcher.err" ||
    { cat "$TCP_TMP/launcher.err" >&2; tcp_fail "rank $r does not name the lost rank $victim"; }
done
grep "ranks 0, 1, 3 failed because of another rank" "$TCP_TMP/launcher.err" ||
  { cat "$TCP_TMP/launcher.err" >&2; tcp_fail "the other ranks did not all exit on their own, failed because of the lost rank"; }
echo "tcp-kill: OK"
