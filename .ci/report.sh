#!/usr/bin/env bash
# graphrun report end to end: two bfs runs and a pagerank run become one HTML
# file, which headless Chromium must open without a console error and render
# with every chart; the screenshot must not be blank and every chart SVG must
# be well-formed XML. Installs chromium and xmllint (Debian) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
BIN=${GRAPHRUN_BIN:-/tmp/graphrun-ci}
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/graphrun

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v xmllint >/dev/null 2>&1 || need+=(libxml2-utils)
if [ ${#need[@]} -gt 0 ]; then
  echo "report: installing ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$BIN" bfs --scale 12 --ranks 4 --roots 8 --exchange packed --codec auto --json "$work/packed.json" >/dev/null
"$BIN" bfs --scale 12 --ranks 4 --roots 8 --algo BIT --json "$work/bit.json" >/dev/null
"$BIN" pagerank ../shared/data/soc-Slashdot0902.txt.gz --ranks 16 --json "$work/pr.json" >/dev/null
"$BIN" report "$work/packed.json" "$work/bit.json" "$work/pr.json" -o "$work/report.html" --plots "$work/plots"

charts=$(grep -o '<svg' "$work/report.html" | wc -l)
# 2 comparison charts, 3 per bfs run, 1 for pagerank.
[ "$charts" -eq 9 ] || { echo "report: $charts charts in the HTML, want 9"; exit 1; }
for f in "$work"/plots/*.svg; do xmllint --noout "$f"; done
echo "report: $(ls "$work"/plots/*.svg | wc -l) chart SVGs are well-formed XML"

chrome=(chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,7000)
"${chrome[@]}" --dump-dom "file://$work/report.html" 2>"$work/dom.log" >"$work/dom.html"
rendered=$(grep -o '<svg' "$work/dom.html" | wc -l)
[ "$rendered" -eq 9 ] || { echo "report: chromium's DOM has $rendered charts, want 9"; cat "$work/dom.log"; exit 1; }
"${chrome[@]}" --enable-logging=stderr --v=0 --screenshot="$work/shot.png" "file://$work/report.html" 2>"$work/shot.log" >/dev/null
if grep -E 'CONSOLE|Uncaught|Failed to load' "$work/shot.log"; then
  echo "report: chromium reported errors"; exit 1
fi
size=$(stat -c %s "$work/shot.png")
# A blank 1280×7000 page compresses to a few kB; nine charts and tables do not.
[ "$size" -gt 50000 ] || { echo "report: screenshot of $size bytes looks blank"; exit 1; }
echo "report: headless chromium rendered $rendered charts, screenshot $size bytes"
