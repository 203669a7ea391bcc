#!/usr/bin/env bash
# Prints the validation curve of one simulated device preset as a Markdown
# table: IOPS / mean / p99 completion latency against queue depth, for 4 KiB
# random read and write and 128 KiB sequential read and write, each cell one
# `tierlab run` of a fio job file on a layout holding that one device.
#
#   bench/device_curves.sh PRESET [build-dir]     # e.g. nvme-pm1725
#
# Environment: QDS (default "1 2 4 8 16 32 64 128 256"), RUNTIME simulated
# seconds per cell (default 2 for flash, 60 for HDDs), CAPACITY of the device
# (default 8g: large enough that a sequential cell never wraps within 2 s on
# flash; HDD cells run on the whole-disk zone table regardless).
# The tables in docs/DEVICES.md ("validation") come from this script.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 PRESET [build-dir]" >&2; exit 2; }
preset=$1
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="${2:-${TIERLAB_BUILD_DIR:-$repo/build}}"
bin="$build/tierlab"
[ -x "$bin" ] || { echo "$bin not built (ninja -C $build tierlab)" >&2; exit 2; }
command -v jq >/dev/null || { echo "jq not found" >&2; exit 2; }

case $preset in
  hdd*) runtime=${RUNTIME:-60} ;;
  *) runtime=${RUNTIME:-2} ;;
esac
qds=${QDS:-1 2 4 8 16 32 64 128 256}
capacity=${CAPACITY:-8g}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '{"name":"one","tiers":[{"name":"dev","preset":"%s","count":1,"capacity":"%s"}]}\n' \
  "$preset" "$capacity" >"$tmp/layout.json"

# One cell: prints "IOPS / mean ms / p99 ms" (MB/s instead of IOPS for
# sequential patterns, where bandwidth is the datasheet's figure).
cell() {  # rw bs qd
  local rw=$1 bs=$2 qd=$3 dir=read
  case $rw in *write) dir=write ;; esac
  printf '[j]\nrw=%s\nbs=%s\niodepth=%s\nruntime=%s\ntime_based\n' \
    "$rw" "$bs" "$qd" "$runtime" >"$tmp/job.fio"
  "$bin" run -l "$tmp/layout.json" -p "$tmp/job.fio" -f json >"$tmp/out.json" 2>"$tmp/err" || {
    cat "$tmp/err" >&2
    exit 1
  }
  jq -r --arg d "$dir" --arg seq "${rw%%rand*}" '
    .jobs[0][$d] as $x
    | (if $seq == "" then ($x.iops | round | tostring)
       else (($x.bw_bytes / 1e6) | round | tostring) + " MB/s" end)
      + " / " + (($x.clat_ns.mean / 1e6) * 1000 | round / 1000 | tostring)
      + " / " + (($x.clat_ns.percentile["99.000000"] / 1e6) * 1000 | round / 1000 | tostring)
  ' "$tmp/out.json"
}

echo "| QD | randread 4k | randwrite 4k | read 128k | write 128k |"
echo "|---|---|---|---|---|"
for qd in $qds; do
  printf '| %s | %s | %s | %s | %s |\n' "$qd" \
    "$(cell randread 4k "$qd")" "$(cell randwrite 4k "$qd")" \
    "$(cell read 128k "$qd")" "$(cell write 128k "$qd")"
done
