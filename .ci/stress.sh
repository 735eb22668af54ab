#!/usr/bin/env bash
# Stress check of the transport and the allreduce under load: the race
# detector over ./comm/... and ./allreduce/..., three times in a row
# (-count=3), with two CPU hogs (sh -c 'while :; do :; done') running
# beside it. A test's deadline must tell a hang from a slow machine: this
# is the slow machine. Optional in .ci/run (STRESS=1); takes 10-20 min on 2
# cores. Usage: bash .ci/stress.sh [extra go test flags]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin:$HOME/go/bin"
hogs=()
stop_hogs() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop_hogs EXIT
for _ in 1 2; do
  sh -c 'while :; do :; done' &
  hogs+=("$!")
done
echo "== go test -race -count=3 ./comm/... ./allreduce/... beside ${#hogs[@]} CPU hogs (load $(cut -d' ' -f1 /proc/loadavg))"
start=$SECONDS
go test -race -count=3 -timeout 60m "$@" ./comm/... ./allreduce/...
echo "stress: OK in $((SECONDS - start)) s"
