#!/usr/bin/env bash
# Captures a fixed set of simulated results from a tierlab binary, so that a
# change meant to keep behaviour can be checked byte for byte:
#
#   scripts/capture_outputs.sh BIN OUT_DIR      # e.g. build/tierlab /tmp/before
#   ...change, rebuild...
#   scripts/capture_outputs.sh BIN OUT_DIR2 && diff -r OUT_DIR OUT_DIR2
#
# It runs the four example matrices, the trace matrix fixture, `tierlab run`
# on builtin profiles, a fio job file, a JSON profile, trace replays (closed
# and open loop) and `tierlab analyze` on a trace and on a profile. Fields
# that differ between runs of the same binary (the version string) are the
# same for both sides when both come from one tree; wall times are not in
# simulated results, except analyze's own, which is removed.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 BIN OUT_DIR" >&2; exit 2; }
bin=$(realpath "$1")
out=$2
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(realpath "$out")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

for m in "$src"/examples/*.json; do
  n=$(basename "$m" .json)
  "$bin" matrix "$m" -q -o "$out/matrix-$n.json" -f md >"$out/matrix-$n.md"
done
cp -r "$src/tests/data/traces" "$src/tests/data/matrix" .
"$bin" matrix matrix/trace-matrix.json -q -o "$out/matrix-trace.json" -f csv >"$out/matrix-trace.csv"

run() {  # name, then tierlab run arguments
  local name=$1
  shift
  "$bin" run "$@" -f json >"$out/run-$name.json"
}
run nvme2-hdd4-7030 -l nvme2+hdd4 -p 4k-70-30
run nvme1-hdd2-randread -l nvme1+hdd2 -p 4k-randread
run ssd2-hdd4-randwrite -l ssd2+hdd4 -p 4k-randwrite
run nvme2-ssd4-hdd4-8k -l nvme2+ssd4+hdd4 -p 8k-70-30
run nvme2-hdd4-seqread -l nvme2+hdd4 -p 64k-seqread
run nvme2-hdd4-seqwrite -l nvme2+hdd4 -p 64k-seqwrite
run hdd4-hcibench -l hdd4 -p hcibench-4k-50rand-r70
run nvme2-ssd4-3070 -l nvme2+ssd4 -p 4k-30-70 --seed 7

cat >job.fio <<'FIO'
[global]
ioengine=libaio
direct=1
size=2g
runtime=3
ramp_time=1

[randrw]
rw=randrw
rwmixread=60
bs=8k
iodepth=16
numjobs=2
random_distribution=zipf:1.1

[seq]
stonewall
rw=write
bs=128k
iodepth=4
FIO
run fio-job -l nvme1+hdd2 -p job.fio

cat >profile.json <<'JSON'
{"name": "p", "rw": "randrw", "rwmixread": 50, "bs": "4k", "iodepth": 8, "numjobs": 2,
 "size": "1g", "runtime": "2s", "random_distribution": "pareto:0.9"}
JSON
run json-profile -l nvme2+hdd4 -p profile.json

run trace-closed -l nvme1+hdd2 --trace traces/msr-cambridge1-sample.csv --iodepth 8
run trace-open -l nvme1+hdd2 --trace traces/msr-cambridge1-sample.csv --replay-mode open --replay-time-scale 1000
run trace-vscsi -l nvme2+ssd4 --trace traces/cloudPhysicsIO.vscsi

# analyze reports its own wall time ("wall_s"): the one field left out.
"$bin" analyze --trace traces/msr-cambridge1-sample.csv -f json | jq 'del(.wall_s)' >"$out/analyze-trace.json"
"$bin" analyze -p 4k-30-70 --cache-size 1g -f json | jq 'del(.wall_s)' >"$out/analyze-profile.json"
echo "captured $(ls "$out" | wc -l) outputs in $out"
