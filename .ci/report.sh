#!/usr/bin/env bash
# graphrun report end to end: two bfs runs that differ in scale, ranks and
# algorithm and a pagerank run become one HTML file, which headless Chromium
# must open without a console error and render with every chart; the
# screenshot must not be blank and is kept as an artifact (its path printed
# below; $GRAPHRUN_ARTIFACTS sets the folder), every chart SVG must be
# well-formed XML and every PDF a PDF. Installs chromium and xmllint (Debian)
# when missing.
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
artifacts=${GRAPHRUN_ARTIFACTS:-/tmp/graphrun-ci-artifacts}
mkdir -p "$artifacts"
"$BIN" bfs --scale 12 --ranks 4 --roots 8 --exchange packed --codec auto --json "$work/packed.json" >/dev/null
"$BIN" bfs --scale 13 --ranks 2 --roots 8 --algo BIT --json "$work/bit.json" >/dev/null
"$BIN" pagerank testdata/soc-Slashdot0902.txt.gz --ranks 16 --json "$work/pr.json" >/dev/null
"$BIN" report "$work/packed.json" "$work/bit.json" "$work/pr.json" -o "$work/report.html" --plots "$work/plots"

want=15 # 4 comparison charts, 4 per bfs run, 3 for pagerank (convergence, time per iteration, layers)
charts=$(grep -o '<svg' "$work/report.html" | wc -l)
[ "$charts" -eq $want ] || { echo "report: $charts charts in the HTML, want $want"; exit 1; }
grep -q '<li>scale 12, 4 ranks, exchange packed, codec auto' "$work/report.html" || { echo "report: runs not named by what differs"; exit 1; }
for f in "$work"/plots/*.svg; do xmllint --noout "$f"; done
for f in "$work"/plots/*.pdf; do head -c 5 "$f" | grep -q '%PDF-' || { echo "report: $f is not a PDF"; exit 1; }; done
n=$(ls "$work"/plots/*.svg | wc -l)
[ "$n" -eq $want ] && [ "$(ls "$work"/plots/*.pdf | wc -l)" -eq $want ] && [ "$(ls "$work"/plots/*.png | wc -l)" -eq $want ] ||
  { echo "report: --plots wrote $n SVG files, want $want of each format"; exit 1; }
echo "report: $n charts in SVG (well-formed XML), PDF and PNG"

chrome=(chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,12000)
"${chrome[@]}" --dump-dom "file://$work/report.html" 2>"$work/dom.log" >"$work/dom.html"
rendered=$(grep -o '<svg' "$work/dom.html" | wc -l)
[ "$rendered" -eq $want ] || { echo "report: chromium's DOM has $rendered charts, want $want"; cat "$work/dom.log"; exit 1; }
"${chrome[@]}" --enable-logging=stderr --v=0 --screenshot="$work/shot.png" "file://$work/report.html" 2>"$work/shot.log" >/dev/null
if grep -E 'CONSOLE|Uncaught|Failed to load' "$work/shot.log"; then
  echo "report: chromium reported errors"; exit 1
fi
size=$(stat -c %s "$work/shot.png")
# A blank 1280×12000 page compresses to a few kB; fifteen charts and tables do not.
[ "$size" -gt 50000 ] || { echo "report: screenshot of $size bytes looks blank"; exit 1; }
cp "$work/shot.png" "$artifacts/report-screenshot.png"
cp "$work/report.html" "$artifacts/report.html"
echo "report: headless chromium rendered $rendered charts, screenshot $size bytes"
echo "report: artifact: $artifacts/report-screenshot.png (and report.html beside it)"
