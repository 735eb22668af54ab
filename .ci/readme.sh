#!/usr/bin/env bash
# Runs every command of README.md, as written, on a fresh clone of this
# repository with nothing beside it: each ```sh block in order, as one bash
# script with -euo pipefail, in the clone's root, with `go install`'s
# directory on PATH. A block preceded by a line starting with
# "<!-- readme: not run" is skipped (the comment says why and which script
# checks it instead). Fails on the first command that fails.
#
#   bash .ci/readme.sh [README]        (default: README.md of this checkout)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
readme="${1:-$repo/README.md}"
export PATH="$PATH:/usr/local/go/bin"

work="$(mktemp -d /tmp/graphrun-readme.XXXXXX)"
trap 'rm -rf "$work"' EXIT
git clone --quiet --no-hardlinks "$repo" "$work/graphrun"
# Uncommitted changes of this checkout (a developer's run) go along.
git -C "$repo" diff HEAD | git -C "$work/graphrun" apply --allow-empty
export GOBIN="$work/bin"
export PATH="$GOBIN:$PATH"

# Split the README into numbered block files: blocks/NN.sh (to run) and
# blocks/NN.skip (not run, with the reason).
mkdir "$work/blocks"
awk -v dir="$work/blocks" '
  /^<!-- readme: not run/ { skip = $0; next }
  /^```sh$/ && !inblock { inblock = 1; n++; name = sprintf("%s/%02d.%s", dir, n, skip ? "skip" : "sh");
                          if (skip) print skip > name; skip = ""; next }
  /^```/ && inblock { inblock = 0; close(name); next }
  inblock { print > name; next }
  { if ($0 != "") skip = "" }
' "$readme"

ran=0 skipped=0
for block in "$work"/blocks/*; do
  case "$block" in
  *.skip)
    echo "== README block $(basename "$block" .skip): not run: $(head -1 "$block" | sed 's/^<!-- readme: not run *//; s/ *-->$//')"
    skipped=$((skipped + 1))
    continue ;;
  esac
  echo "== README block $(basename "$block" .sh)"
  sed 's/^/  $ /' "$block"
  start=$(date +%s)
  (cd "$work/graphrun" && timeout 1200 bash -euo pipefail "$block") || {
    echo "FAIL: README block $(basename "$block" .sh) (above) failed" >&2
    exit 1
  }
  echo "== README block $(basename "$block" .sh): $(($(date +%s) - start)) s (load $(cut -d' ' -f1-3 /proc/loadavg))"
  ran=$((ran + 1))
done
echo "readme: $ran blocks ran, $skipped not run (see above why)"
