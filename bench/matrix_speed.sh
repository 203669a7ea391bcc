#!/usr/bin/env bash
# Matrix runner speed: the demo matrix (examples/s2d-layouts.json) with -j1
# and -j2 (or -jN for N given), wall time, cells per second, simulated I/Os
# per cell and the speed-up.
#
#   bench/matrix_speed.sh [BUILD_DIR] [MAX_JOBS]     (from the repo root)
#
# BUILD_DIR defaults to build; MAX_JOBS to 2.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
max_jobs=${2:-2}
bin="$build/tierlab"
matrix=examples/s2d-layouts.json
[ -x "$bin" ] || { echo "matrix_speed.sh: $bin not built" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "date: $(date -u +%Y-%m-%d)"
echo "matrix: $matrix ($("$bin" matrix "$matrix" --list | wc -l) cells)"
printf '%-4s %9s %8s %14s %14s %8s\n' jobs wall_s cells/s "sim I/Os/cell" "sim I/Os/s" speedup
base=""
for j in $(seq 1 "$max_jobs"); do
  start=$(date +%s.%N)
  "$bin" matrix "$matrix" -q -j "$j" -o "$out/r$j.json" -f json
  end=$(date +%s.%N)
  python3 - "$out/r$j.json" "$start" "$end" "$j" "${base:-0}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
jobs = int(sys.argv[4]); base = float(sys.argv[5])
cells = len(r["cells"])
ios = sum(c["jobs"][0]["issued_ios"] for c in r["cells"])
speed = (base / wall) if base > 0 else 1.0
print(f"{jobs:<4} {wall:9.2f} {cells / wall:8.2f} {ios / cells:14.0f} {ios / wall:14.0f} {speed:8.2f}")
PY
  if [ -z "$base" ]; then base=$(echo "$end - $start" | bc); fi
done
cmp -s <(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["cells"]))' "$out/r1.json") \
       <(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["cells"]))' "$out/r$max_jobs.json") \
  && echo "results identical for -j1 and -j$max_jobs" || echo "WARNING: results differ between -j1 and -j$max_jobs"
