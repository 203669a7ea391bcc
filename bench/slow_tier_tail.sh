#!/usr/bin/env bash
# Where the slow tier's p99 comes from (docs/VALIDATION.md, "the slow
# tier's tail"): examples/validate-local.json's 64k sequential cell with the
# read cache off, in real time, with its capacity file on the work disk and
# on tmpfs, alternated; and fio on the same disk file at the pace the
# throttle sets (64k sequential reads, 6,400 a second, QD8, O_DIRECT,
# io_uring). The cell's requests are paced by the slow tier's throttle
# (10,000 reads and 400 MiB/s a second: 156 us a 64 KiB read), wait its 1 ms
# delay, then read the file: about 1.25 ms each with 8 in flight. Anything
# past that is the file's, so the tmpfs runs show what the stack adds and
# the disk runs what the disk does.
#
#   bench/slow_tier_tail.sh [tierlab-binary]
# Environment: DIR (where the disk file goes; default a new directory under
#   the build directory, on the repo's filesystem), RUNTIME (s, default 6),
#   ROUNDS (default 2).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-${TIERLAB_BIN:-$repo/build/tierlab}}"
runtime="${RUNTIME:-6}"
rounds="${ROUNDS:-2}"
for c in fio python3; do
  command -v "$c" >/dev/null || { echo "$c not found" >&2; exit 2; }
done
[[ -x "$bin" ]] || { echo "$bin: not built" >&2; exit 2; }
disk="$(mktemp -d "${DIR:-$(dirname "$bin")}/tierlab-tail.XXXXXX")"
shm="$(mktemp -d /dev/shm/tierlab-tail.XXXXXX)"
trap 'rm -rf "$disk" "$shm"' EXIT

layout() {  # capacity-dir
  cat <<JSON
{"name": "shm+slow", "size": "1g",
 "tiers": [{"name": "cache", "preset": "ram", "capacity": "256m", "paths": ["$shm/cache.img"]},
           {"name": "capacity", "preset": "ssd-hk4e", "capacity": "1g", "paths": ["$1/capacity.img"],
            "read_delay_us": 1000, "read_iops_limit": 10000, "read_bw_limit": "400m"}],
 "cache": {"tier": "cache", "read": false, "write": "writeback", "line_size": "4k"}}
JSON
}
layout "$disk" >"$disk/on-disk.json"
layout "$shm" >"$disk/on-tmpfs.json"
cat >"$disk/profile.json" <<JSON
{"name": "64k-seqread-1g", "rw": "read", "bs": "64k", "iodepth": 8, "size": "1g",
 "runtime": "${runtime}s", "ramp_time": "1s", "time_based": true, "precondition": "fill"}
JSON
show() {  # label json-file: IOPS and latency percentiles in us
  python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))["jobs"][0]["read"]
p = r["clat_ns"]["percentile"]
q = lambda k: f"{p[k] / 1e3:8.0f}" if k in p else "       -"
print(f"{sys.argv[1]:<26} {r['iops']:8,.0f} {q('50.000000')} {q('99.000000')} "
      f"{q('99.900000')} {q('99.990000')} {r['clat_ns']['max'] / 1e3:8.0f}")
PY
}
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-26s %8s %8s %8s %8s %8s %8s\n' run IOPS "p50 us" "p99" "p99.9" "p99.99" max
for ((r = 1; r <= rounds; ++r)); do
  for where in on-disk on-tmpfs; do
    "$bin" run --real -l "$disk/$where.json" -p "$disk/profile.json" -q -f json -o "$disk/out.json"
    show "tierlab, capacity $where" "$disk/out.json"
  done
  fio --name=disk --filename="$disk/capacity.img" --rw=read --bs=64k --iodepth=8 \
    --rate_iops=6400 --direct=1 --ioengine=io_uring --size=1g --time_based \
    --runtime="$runtime" --percentile_list=50:99:99.9:99.99 --output-format=json \
    --output="$disk/fio.json" >/dev/null
  show "fio, the disk file" "$disk/fio.json"
done
