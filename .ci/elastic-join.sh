#!/usr/bin/env bash
# Elastic ramp-up (Zhang and Qiu §III ramp-up mode, §V-C adding tasks): a
# 3-process elastic PageRank on Slashdot started by hand (--rank/--size,
# GRAPHRUN_COORDINATOR, GRAPHRUN_TOKEN), and a 4th process started with
# --join once the job is up. It must join between two iterations (rank 0
# reports the growth and a job of 4 ranks), every process must exit 0, and
# the top 20 must equal an unkilled, fixed-size run's (same ids in the same
# order, scores within a relative 1e-9: after the growth the sums run in
# another order on 4 ranks, so bits may differ). Also: a joiner with a
# wrong token is refused at once while the job runs.
# Usage: bash .ci/elastic-join.sh; GRAPHRUN_BIN=path skips the build.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/tcp-lib.sh
tcp_scratch
tcp_build
tcp_slashdot

echo "== reference: --procs 3, not elastic"
"$GRAPHRUN" pagerank "$data" --iterations 600 --top 20 --procs 3 >"$TCP_TMP/ref.out" 2>"$TCP_TMP/ref.err" ||
  { cat "$TCP_TMP/ref.err" >&2; tcp_fail "the reference run failed"; }

# 3000 iterations (600 converge to the last bit): the run outlasts the
# joiner's arrival by far, even on a fast machine.
args=(pagerank "$data" --iterations 3000 --top 20 --peer-timeout 10s --elastic --threads 1)
echo "== three ranks by hand with --elastic; a fourth process --join's once the job is up"
export GRAPHRUN_COORDINATOR=127.0.0.1:$(tcp_free_port)
export GRAPHRUN_TOKEN=$(tcp_token)
for r in 0 1 2; do
  "$GRAPHRUN" "${args[@]}" --rank "$r" --size 3 >"$TCP_TMP/out$r" 2>"$TCP_TMP/err$r" &
  pids[r]=$!
done
start=$SECONDS
until grep -q 'processes may join job' "$TCP_TMP/err0" 2>/dev/null; do
  [ $((SECONDS - start)) -lt 30 ] || { cat "$TCP_TMP/err0" >&2; tcp_fail "rank 0 opened no lobby within 30 s"; }
  kill -0 "${pids[0]}" 2>/dev/null || { cat "$TCP_TMP/err0" >&2; tcp_fail "rank 0 ended before opening its lobby"; }
  sleep 0.1
done
sleep 1 # past reading the input, into the iterations (an earlier joiner waits for iteration 1)

echo "-- a joiner with a wrong token is refused"
wrong_rc=0
GRAPHRUN_TOKEN=$(tcp_token) timeout 30 "$GRAPHRUN" "${args[@]}" --join >"$TCP_TMP/wrong.out" 2>"$TCP_TMP/wrong.err" || wrong_rc=$?
[ "$wrong_rc" = 1 ] || { cat "$TCP_TMP/wrong.err" >&2; tcp_fail "the joiner with a wrong token exited $wrong_rc, want 1"; }
grep -q 'wrong token' "$TCP_TMP/wrong.err" || { cat "$TCP_TMP/wrong.err" >&2; tcp_fail "the refused joiner does not say the token is wrong"; }
echo "refused: $(grep -m1 'wrong token' "$TCP_TMP/wrong.err" | cut -c1-200)"

echo "-- the joiner"
join_at=$SECONDS
"$GRAPHRUN" "${args[@]}" --join >"$TCP_TMP/outj" 2>"$TCP_TMP/errj" &
pids[3]=$!
for r in 0 1 2 3; do
  err=$TCP_TMP/err$r
  [ "$r" = 3 ] && err=$TCP_TMP/errj
  rc=0
  timeout 120 tail --pid="${pids[r]}" -f /dev/null || tcp_fail "process $r still runs 120 s after the joiner started"
  wait "${pids[r]}" || rc=$?
  [ "$rc" = 0 ] || { cat "$err" >&2; tcp_fail "process $r exited $rc"; }
done
pids=()
echo "all four processes exited 0, $((SECONDS - join_at)) s after the joiner started"
grep -q 'pagerank --join: joined as rank 3 of 4 (epoch 1)' "$TCP_TMP/errj" || { cat "$TCP_TMP/errj" >&2; tcp_fail "the joiner did not join as rank 3 of 4"; }
growth=$(grep -m1 'elastic: growth at epoch 1: 1 process(es) joined after iteration' "$TCP_TMP/err0") ||
  { cat "$TCP_TMP/err0" >&2; tcp_fail "rank 0 reports no growth"; }
echo "rank 0: ${growth#graphrun: }"
grep -q ', 4 ranks,' "$TCP_TMP/out0" || { cat "$TCP_TMP/out0" >&2; tcp_fail "rank 0 does not report 4 ranks"; }
for f in out1 out2 outj; do
  [ ! -s "$TCP_TMP/$f" ] || { cat "$TCP_TMP/$f" >&2; tcp_fail "$f: only rank 0 prints"; }
done
tcp_top20_close "$TCP_TMP/ref.out" "$TCP_TMP/out0" "the grown run"
echo "top 20 equal to the fixed-size reference's"
echo "elastic-join: OK"
