# Sourced by the scripts of bench/scripts: from the repository's root, makes a scratch folder
# $work (removed on exit), sets $bin to GRAPHRUN_BIN or a fresh build of ./cmd/graphrun in it,
# and prints the line that dates a table: date, cores, memory and the load average at the start.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=${GRAPHRUN_BIN:-$work/graphrun}
[ -n "${GRAPHRUN_BIN:-}" ] || go build -o "$bin" ./cmd/graphrun
echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores and" \
  "$(awk '/MemTotal/ {printf "%.0f", $2 / 1048576}' /proc/meminfo) GiB; load average at the start:" \
  "$(cut -d' ' -f1-3 /proc/loadavg)."
echo
