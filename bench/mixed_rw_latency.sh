#!/usr/bin/env bash
# A cached volume at RAM speed: the latency of a mix's reads and writes
# against pure reads and pure writes (docs/VALIDATION.md, "p99 at RAM
# speed"). At this speed the host's CPU binds and every stage is a FIFO, so
# in a 70/30 mix a read and a write should take about as long as each other
# and as a pure read or write; a read that takes much longer than a write
# means the stack lets one direction overtake the other (it did, until
# CacheTarget kept a mixed burst in order).
#
# The volume: a write-back cache of 256 MiB in 4 KiB lines over a 512 MiB
# capacity tier, both files in DIR (both with the "ram" preset). Each round
# runs, in real time, 4k random I/O at QD16 over 128 MiB (all of it cached
# after the fill) for RUNTIME seconds after a 1 s ramp: 70/30 read/write,
# reads only, writes only.
#
#   bench/mixed_rw_latency.sh [tierlab-binary]
# Environment: DIR (default /dev/shm), RUNTIME (s, default 5), ROUNDS
#   (default 2).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-${TIERLAB_BIN:-$repo/build/tierlab}}"
runtime="${RUNTIME:-5}"
rounds="${ROUNDS:-2}"
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 2; }
[[ -x "$bin" ]] || { echo "$bin: not built" >&2; exit 2; }
files="$(mktemp -d "${DIR:-/dev/shm}/tierlab-mixed.XXXXXX")"
conf="$(mktemp -d)"
trap 'rm -rf "$files" "$conf"' EXIT

cat >"$conf/layout.json" <<JSON
{"name": "ram-cached", "size": "512m",
 "tiers": [{"name": "cache", "preset": "ram", "capacity": "256m", "paths": ["$files/cache.img"]},
           {"name": "capacity", "preset": "ram", "capacity": "512m", "paths": ["$files/capacity.img"]}],
 "cache": {"tier": "cache", "read": true, "write": "writeback", "line_size": "4k"}}
JSON
profile() {  # name rw
  cat >"$conf/$1.json" <<JSON
{"name": "$1", "rw": "$2", "rwmixread": 70, "bs": "4k", "iodepth": 16, "size": "128m",
 "runtime": "${runtime}s", "ramp_time": "1s", "time_based": true, "precondition": "fill"}
JSON
}
profile 70-30 randrw
profile reads randread
profile writes randwrite

echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), files in ${DIR:-/dev/shm}"
printf '%-6s %-7s %10s %11s %10s %11s %10s\n' round job IOPS "read us" "read p99" "write us" "write p99"
for ((r = 1; r <= rounds; ++r)); do
  for job in 70-30 reads writes; do
    "$bin" run --real -l "$conf/layout.json" -p "$conf/$job.json" -q -f json -o "$conf/out.json"
    python3 - "$conf/out.json" "$r" "$job" <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
def lat(d):
    c = job[d]["clat_ns"]
    if not c.get("N"):
        return "-", "-"
    return f"{c['mean'] / 1e3:.1f}", f"{c['percentile']['99.000000'] / 1e3:.1f}"
(rm, rp), (wm, wp) = lat("read"), lat("write")
iops = job["read"]["iops"] + job["write"]["iops"]
print(f"{sys.argv[2]:<6} {sys.argv[3]:<7} {iops:10,.0f} {rm:>11} {rp:>10} {wm:>11} {wp:>10}")
PY
  done
done
