#!/usr/bin/env bash
# Hostile but plausible input through the CLI: JSON nested 100,000 deep,
# duplicate keys, binary job files, enormous matrices and queue depths,
# type errors in results files, directories given as files, out-of-range
# replay scales, traces whose lines are all skipped. Each must give a
# one-line error naming the file (exit code 2) in bounded time and memory,
# never a crash, a raw library message or a silent wrong answer.
set -euo pipefail
bin=${TIERLAB_BIN:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
failures=0
# A failed check is reported and counted, and the others still run.
miss() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# Memory is capped so that a regression fails here instead of taking the
# machine: 1 GiB of address space, or, in an ASan build (which reserves
# terabytes of address space for its shadow memory and cannot start under
# that limit), the sanitizer's own 1 GiB resident-memory limit.
if grep -qa __asan_init "$bin"; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=1024"
  capped() { "$@"; }
else
  capped() { (ulimit -v 1048576; "$@"); }
fi

# expect CODE PATTERN -- tierlab ARGS...: exit code, one stderr line
# matching PATTERN, in capped memory.
expect() {
  local code=$1 pattern=$2
  shift 3
  local rc=0
  capped timeout 60 "$bin" "$@" >out.txt 2>err.txt || rc=$?
  if [ "$rc" -ne "$code" ]; then
    miss "tierlab $* exited $rc, want $code: $(head -c 600 err.txt)"
  elif ! grep -q -- "$pattern" err.txt; then
    miss "tierlab $*: stderr lacks '$pattern': $(head -c 600 err.txt)"
  elif [ "$(wc -l <err.txt)" -gt 1 ] || [ "$(wc -c <err.txt)" -gt 600 ]; then
    miss "tierlab $*: not one short line: $(head -c 600 err.txt)"
  fi
}

python3 - <<'PY'
import json
deep = "[" * 100000 + "]" * 100000
open("deep-name.json", "w").write('{"name": %s, "tiers": [{"preset": "ssd-hk4e"}]}' % deep)
open("deep-cache.json", "w").write('{"tiers": [{"preset": "ssd-hk4e"}], "cache": %s}' % deep)
open("deep-profile.json", "w").write('{"name": "p", "rw": %s}' % deep)
open("deep-matrix.json", "w").write(
    '{"layouts": ["nvme2+hdd4"], "profiles": ["4k-randread"], "axes": {"bs": %s}}' % deep)
open("deep-results.json", "w").write('{"matrix_hash": "x", "cells": %s}' % deep)
open("dup.json", "w").write(
    '{"name": "d", "tiers": [{"name": "cache", "preset": "nvme-pm1725"},'
    ' {"name": "hdd", "preset": "hdd-7200", "count": 4}],'
    ' "cache": {"tier": "cache", "tier": "hdd"}}')
open("nul.fio", "wb").write(b"[job]\nrw=randread\nbs=4k\x00\x01\x02\n")
vals = list(range(1, 10001))
json.dump({"name": "huge", "layouts": ["nvme2+hdd4"], "profiles": ["4k-randread"],
           "profile_override": {"runtime": "1s", "ramp_time": "0"},
           "axes": {"iodepth": vals, "size": ["%dm" % v for v in vals]}}, open("huge.json", "w"))
json.dump({"name": "big", "rw": "randread", "iodepth": 65536, "numjobs": 4096, "runtime": "1s"},
          open("big-qd.json", "w"))
json.dump({"name": "t", "tiers": [{"name": "d", "preset": "ssd-hk4e",
                                   "count": 18446744073709551615}]}, open("u64-layout.json", "w"))
PY

# 8: deep JSON, duplicate keys, binary job files.
expect 2 'deep-name.json: name\[0\].*nested deeper than 64 levels' -- run -l deep-name.json
expect 2 'deep-cache.json: cache\[0\].*nested deeper than 64 levels' -- run -l deep-cache.json
expect 2 'deep-profile.json: rw\[0\].*nested deeper than 64 levels' -- run -p deep-profile.json
expect 2 'deep-matrix.json: axes.bs\[0\].*nested deeper' -- matrix deep-matrix.json --list
expect 2 'deep-results.json: cells\[0\].*nested deeper' -- report deep-results.json
expect 2 'dup.json: cache.tier: duplicate key: first "cache", then "hdd"' -- run -l dup.json
expect 2 'nul.fio:3: binary data (byte 0x00 at column 6); a fio job file is text' -- run -p nul.fio

# 9: enormous but valid input: refused in one line with an estimate, or capped.
start=$(date +%s)
expect 2 'huge.json: 100000000 cells, more than the 100000 a matrix runs without --force; at 1 s of simulated ramp + runtime per cell, about 3.17 years of simulated time' -- matrix huge.json --list
expect 2 'more than the 100000' -- matrix huge.json -q
[ $(($(date +%s) - start)) -lt 20 ] || miss "refusing the huge matrix took $(($(date +%s) - start)) s"
# --force streams it: the first lines at once, in bounded memory.
rc=0
(capped timeout 60 "$bin" matrix huge.json --list --force | head -3 >head.txt) || rc=$?
[ "$(wc -l <head.txt)" -eq 3 ] || miss "--list --force printed $(wc -l <head.txt) lines: $(cat head.txt)"
grep -q '^2 [0-9a-f]\{12\} nvme2+hdd4 | 4k-randread | iodepth=1 size=3m$' head.txt ||
  miss "third cell: $(cat head.txt)"
# A shard far down the matrix starts at once too.
(capped timeout 60 "$bin" matrix huge.json --list --force --shard 1000/1000 | head -1 >shard.txt) || true
grep -q '^999 ' shard.txt || miss "shard 1000/1000 starts with $(cat shard.txt)"
expect 2 'big-qd.json: iodepth: numjobs 4096 x iodepth 65536 = 268435456 outstanding requests; a run keeps at most 1048576' -- run -p big-qd.json
trace=$TIERLAB_SOURCE_DIR/tests/data/traces/msr-cambridge1-sample.csv
expect 2 '--iodepth: must be 1..65536, got 4294967295' -- run --trace "$trace" --iodepth 4294967295

# 11: results files with type errors, u64 maximum, replay time scale,
# all-skipped traces, directories.
"$bin" matrix "$TIERLAB_SOURCE_DIR/tests/data/matrix/report-fixture.json" -q -j 2 -o r.json -f json
python3 - <<'PY'
import json
r = json.load(open("r.json"))
r["cells"][1]["jobs"][0]["read"]["iops"] = "fast"
json.dump(r, open("bad-type.json", "w"))
r = json.load(open("r.json"))
r["cells"][0]["repeat"] = "first"
json.dump(r, open("bad-repeat.json", "w"))
PY
expect 2 'bad-type.json: cells\[1\].jobs\[0\].read.iops: must be a number, got "fast"' -- report bad-type.json
expect 2 'bad-type.json: cells\[1\].jobs\[0\].read.iops: must be a number' -- diff r.json bad-type.json
expect 2 'bad-repeat.json: cells\[0\].repeat: must be an unsigned integer, got "first"' -- diff bad-repeat.json --pivot cache.read
expect 2 'bad-type.json: cells\[1\].jobs\[0\].read.iops' -- merge bad-type.json
printf '{"trace": "%s", "number_ios": 18446744073709551615}' "$trace" >u64-trace.json
expect 2 'u64-trace.json: number_ios: must be 0..9223372036854775807, got 18446744073709551615' -- run -p u64-trace.json
expect 2 'u64-layout.json: tiers\[0\].count: must be 1..1024, got 18446744073709551615' -- run -l u64-layout.json
expect 2 '--replay-time-scale: must be 1e-06..1e+09 (% of the trace'"'"'s rate), got 1e-300' -- \
  run --trace "$trace" --replay-mode open --replay-time-scale 1e-300
cat > q-only.blkparse <<'EOF'
  8,0    3        1     0.000000000   697  Q  WS 223490 + 8 [kjournald]
  8,0    3        2     0.000001829   697  G  WS 223490 + 8 [kjournald]
  8,0    1        4     0.000150000     0  C  WS 223490 + 8 [0]
CPU0 (8,0):
EOF
expect 2 'q-only.blkparse: no I/O records to replay (4 lines skipped: 3 events of other actions (C 1, G 1, Q 1; records come from D events' -- \
  run --trace q-only.blkparse --trace-format blkparse
mkdir -p dir.json dir.fio plaindir
expect 2 'dir.json: is a directory' -- run -l dir.json
expect 2 'plaindir: is a directory' -- run -l plaindir
expect 2 'dir.json: is a directory' -- run -p dir.json
expect 2 'dir.fio: is a directory' -- run -p dir.fio
expect 2 'dir.json: is a directory' -- matrix dir.json
expect 2 'plaindir: is a directory' -- run --trace plaindir
expect 2 'plaindir: is a directory' -- report plaindir
expect 2 'plaindir: is a directory' -- merge plaindir
expect 2 'plaindir: is a directory' -- diff plaindir r.json
expect 2 'plaindir: is a directory' -- trace stats plaindir
# Cluster layouts: more copies than nodes, a cluster in a persistent
# volume or with one path for every node's device (each needs {node}), node CPUs
# with no cost, an erasure code wider than the cluster.
cat >copies.json <<'JSON'
{"tiers": [{"preset": "ssd-hk4e"}], "cluster": {"nodes": 2, "protection": {"copies": 3}}}
JSON
cat >cluster-paths.json <<'JSON'
{"tiers": [{"preset": "ssd-hk4e", "paths": ["a.img"], "capacity": "64m"}], "cluster": {"nodes": 2}}
JSON
expect 2 'copies.json: cluster.protection.copies: 3 copies need 3 nodes; the cluster has 2' -- \
  run -l copies.json
expect 2 'cluster-paths.json: tiers\[0\].paths\[0\]: "a.img" would be one file for 2 nodes; name each node.s file with {node}' -- \
  run --real -l cluster-paths.json
cat >cluster-create.json <<'JSON'
{"tiers": [{"preset": "ssd-hk4e", "paths": ["a{node}.img"], "capacity": "64m"}], "cluster": {"nodes": 2}}
JSON
expect 2 'cluster-create.json: cluster: not in a persistent volume yet' -- \
  create --name vol cluster-create.json
cat >node-paths.json <<'JSON'
{"tiers": [{"preset": "ssd-hk4e", "paths": ["a{node}.img"], "capacity": "64m"}]}
JSON
expect 2 'node-paths.json: tiers\[0\].paths\[0\]: {node} stands for a cluster node.s number; the layout has no cluster' -- \
  run --real -l node-paths.json
cat >cluster-device.json <<'JSON'
{"tiers": [{"name": "ssd", "preset": "ssd-hk4e", "count": 2, "combine": "mirror"}],
 "cluster": {"nodes": 3, "failures": {"node": 1, "device": "ssd1", "kind": "failed"}}}
JSON
expect 2 'cluster-device.json: cluster.failures\[0\].device: the tier.s own mirror keeps the node.s pieces; not modelled yet' -- \
  run -l cluster-device.json
cat >cluster-cpu.json <<'JSON'
{"tiers": [{"preset": "ssd-hk4e"}], "cluster": {"nodes": 2, "cpu": {"cores": 4}}}
JSON
expect 2 'cluster-cpu.json: cluster.cpu: cores without a cost; set per_io_ns or per_kib_ns' -- \
  run -l cluster-cpu.json
cat >cluster-ec.json <<'JSON'
{"tiers": [{"preset": "ssd-hk4e"}], "cluster": {"nodes": 5, "protection": {"scheme": "ec", "data": 4, "parity": 2}}}
JSON
expect 2 'cluster-ec.json: cluster.protection: 4 data + 2 parity chunks need 6 nodes; the cluster has 5' -- \
  run -l cluster-ec.json
cat >cluster-failure.json <<'JSON'
{"tiers": [{"preset": "ssd-hk4e"}], "cluster": {"nodes": 4, "failures": [{"node": 4, "at": "10s"}]}}
JSON
expect 2 'cluster-failure.json: cluster.failures.0.\.node: node 4 does not exist; the cluster has nodes 0\.\.3' -- \
  run -l cluster-failure.json
[ "$failures" -eq 0 ] || fail "$failures checks failed"
echo "hostile input: ok"
