#!/usr/bin/env bash
# tierlab run --trace: a block trace as the workload, closed and open loop,
# offsets wrapped or rejected past the end of the volume.
set -euo pipefail
bin=${TIERLAB_BIN:?}
src=${TIERLAB_SOURCE_DIR:?}
data="$src/tests/data/traces"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Closed loop: every record is issued, the mix matches the trace's.
"$bin" run --trace "$data/cloudPhysicsIO.vscsi" --layout nvme1+hdd2 --iodepth 4 --format json \
  -o "$tmp/closed.json"
# Open loop at twice the trace's rate (fio: replay_time_scale=200).
"$bin" run --trace "$data/cloudPhysicsIO.vscsi" --layout nvme1+hdd2 --replay-mode open \
  --replay_time_scale 200 --format json -o "$tmp/open.json"
python3 - "$tmp/closed.json" "$tmp/open.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); o = json.load(open(sys.argv[2]))
for r in (c, o):
    rp = r["replay"]
    assert rp["records"] == 113872 and rp["reads"] == 46974 and rp["writes"] == 66898, rp
    assert rp["rejected"] == 0
    job = r["jobs"][0]
    assert job["read"]["errors"] == 0 and job["write"]["errors"] == 0
    assert job["read"]["total_ios"] == 46974 and job["write"]["total_ios"] == 66898, job["read"]
    assert r["profile"]["name"] == "cloudPhysicsIO.vscsi"
# Open loop follows the trace's clock: 7200 s of trace at 200 % takes ~3600 s.
assert 3500 < o["jobs"][0]["job_runtime_ns"] / 1e9 < 3700, o["jobs"][0]["job_runtime_ns"]
# Closed loop runs as fast as the stack allows: far shorter.
assert c["jobs"][0]["job_runtime_ns"] < o["jobs"][0]["job_runtime_ns"] / 10
PY

# A small volume: offsets wrap by default; --reject counts them, exit 3.
cat > "$tmp/small.json" <<'JSON'
{"name": "small", "tiers": [{"name": "d", "preset": "ssd-hk4e", "count": 1, "capacity": "1g"}]}
JSON
"$bin" run --trace "$data/cloudPhysicsIO.vscsi" --layout "$tmp/small.json" --format json -o "$tmp/w.json"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["replay"]; assert r["wrapped"] > 0 and r["rejected"] == 0, r' "$tmp/w.json"
set +e
"$bin" run --trace "$data/cloudPhysicsIO.vscsi" --layout "$tmp/small.json" --reject --format json \
  -o "$tmp/r.json" 2>"$tmp/err"; rc=$?
set -e
[ $rc -eq 3 ] || fail "--reject exit code $rc"
grep -q 'rejected [0-9]* record' "$tmp/err" || fail "no rejected count: $(cat "$tmp/err")"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["replay"]; assert r["rejected"] > 0 and r["wrapped"] == 0, r' "$tmp/r.json"

# Bad input.
set +e
"$bin" run --trace "$data/spc-bad.csv" --trace-format spc 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "malformed trace exit $rc"
grep -q 'spc-bad.csv:2:' "$tmp/err" || fail "no file:line: $(cat "$tmp/err")"
"$bin" run --trace "$data/spc.csv" --replay-mode sideways 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "bad replay mode exit $rc"
set -e
echo OK
