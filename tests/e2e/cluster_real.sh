#!/usr/bin/env bash
# A cluster layout in real time: each node's devices are files of its own
# (the layout's paths with {node}), the network is the simulated link's
# model on timers, and a writing job that reads its writes back (fio's
# verify with verify_backlog) finds every byte across a node's absence and
# resync, across a node's failure and rebuild (onto a node in its place,
# or spread over the others' spare room), and across a write-back cache
# device's failure and the rebuild onto its spare device. What each repair
# copied is what was written while the node was away (resync) or at all
# (rebuild).
set -euo pipefail
bin=${TIERLAB_BIN:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"

# Three nodes of a 64 MiB write-back NVMe cache over a 256 MiB SSD, two
# copies of 1 MiB extents; the job writes half of 4k random I/Os over
# 64 MiB, so every extent is written within half a second.
layout() {  # $1: the failures, $2: more keys of the cluster section
  cat <<JSON
{"tiers": [{"name": "cache", "preset": "nvme-pm1725", "capacity": "64m",
            "paths": ["n{node}-cache.img"]},
           {"name": "ssd", "preset": "ssd-hk4e", "capacity": "256m", "paths": ["n{node}-ssd.img"]}],
 "cache": {"write": "writeback"},
 "cluster": {"nodes": 3, "network": {"preset": "10gbe-tcp"}, "protection": {"copies": 2},
             "failures": [$1]${2:+, $2}}}
JSON
}
cat >job.json <<'JSON'
{"rw": "randrw", "rwmixread": 50, "bs": "4k", "iodepth": 8, "size": "64m",
 "ramp_time": "0", "runtime": "4s", "time_based": 1, "precondition": "none", "warmup": "none",
 "verify": "crc32c", "verify_backlog": 32}
JSON

# $1: name, $2: failures, $3: the events expected in order, $4: MiB each
# repair copies at most (the written extents with a copy on the node), $5:
# more keys of the cluster section.
check() {
  layout "$2" "${5:-}" >"$1.json"
  "$bin" run --real -l "$1.json" -p job.json -f json -o "$1.out" ||
    fail "$1: run exited $?: $(head -c 600 "$1.out")"
  for n in 0 1 2; do
    for f in "n$n-cache.img" "n$n-ssd.img"; do
      [ -f "$f" ] || fail "$1: no $f"
    done
  done
  python3 - "$1.out" "$3" "$4" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want = sys.argv[2].split(",")
cap = float(sys.argv[3])
job = r["jobs"][0]
v = job["verify"]
assert job["error"] == 0, job["error"]
assert v["checked"] and v["mismatches"] == 0 and v["reads"] > 1000, v
cf = r["cluster_failures"]
got = [e["event"].split(":")[0] for e in cf["events"]]
assert got == want, (got, want)
phases = cf["phases"]
assert all(p["errors"] == 0 for p in phases), phases
repaired = sum(p["repaired_mib"] for p in phases)
# The written extents with a copy on the node: 2 of every 3 (44 of 64 at
# most, the last group partial). How many were written is the job's own
# count: a resync copies what was written while the node was away (the
# degraded phase), a rebuild at least what was written before it started.
# w random 4k writes over 64 extents touch 64 (1 - (1 - 1/64)^w) of them
# on average: nearly all at this machine's rate, fewer where a slow disk
# wrote only a few hundred in the first half second.
repair = next(i for i, p in enumerate(phases) if p["repaired_mib"] > 0)
before = phases[:repair]
if phases[repair]["phase"] != "rebuilding":  # a resync: the node's absence
    before = [p for p in before if p["phase"] == "degraded"]
write_share = 0.5  # the job is 50/50
writes = write_share * sum(p["iops"] * (p["end_s"] - p["start_s"]) for p in before)
least = 0.8 * cap * (1 - (1 - 1 / 64) ** writes)
assert least <= repaired <= cap, (repaired, least, cap, writes)
ios = job["read"]["total_ios"] + job["write"]["total_ios"]
assert ios > 10000, ios
print(sys.argv[1], "events", got, "repaired MiB", repaired, "of at least",
      round(least, 1), "I/Os", ios)
PY
}

check absent '{"node": 1, "at": "500ms", "kind": "absent", "back": "1s"}' \
  "absent,back,resynced" 44
check failed '{"node": 2, "at": "500ms", "kind": "failed"}' \
  "failed,rebuild starts,rebuilt" 44
check device '{"node": 0, "device": "cache0", "at": "500ms", "kind": "failed"}' \
  "device cache0 failed,rebuild starts,rebuilt" 44
check spare '{"node": 2, "at": "500ms", "kind": "failed"}' \
  "failed,rebuild starts on the other nodes' spare room,rebuilt,rebuilt" 44 '"repair": {"spare": 25}'
echo "cluster_real: ok"
